package suggestions

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// generators make the corpus tables, in order. Each table has columns
// dirt is put into, columns that must be left alone (identifiers, names
// of people with their own spellings, free text, timestamps) and traps: a
// clean column a careless fix would break (Shirts and Skirts, SKUs one
// letter apart, weights with three decimals, dates from two locales).
var generators = []func(*rand.Rand) *table{
	customers, orders, addresses, contacts, sensors, hr, products, invoices, signups,
	appointments, shipments, survey, stores, leads,
}

// violate replaces, in n rows, the dependent column's value by another of
// its values, as a copy from the row above or a slip in a drop-down list
// does: the row then breaks the dependency.
func (t *table) violate(column string, n int) {
	t.dirt(column, 0, "", nil) // makes the dirty copy
	c := t.col(column)
	for n > 0 {
		i := t.r.IntN(len(t.clean))
		k := [2]int{i, c}
		if _, done := t.kind[k]; done {
			continue
		}
		other := t.clean[t.r.IntN(len(t.clean))][c]
		if other == t.clean[i][c] {
			continue
		}
		t.dirty[i][c] = other
		t.kind[k] = KindViolation
		n--
	}
}

func customers(r *rand.Rand) *table {
	t := newTable(r, "01-customers", "CRM export of a Swedish shop: names, e-mail, phones, cities, signup dates, lifetime value",
		"customer_id", "first_name", "last_name", "email", "phone", "city", "country", "signup_date", "lifetime_value")
	for i := range 600 {
		first, last := pick(r, firstNames), pick(r, lastNames)
		region, country := "SE", "Sweden"
		if r.IntN(10) == 0 {
			region, country = pick(r, []string{"NO", "DE", "GB"}), ""
			country = map[string]string{"NO": "Norway", "DE": "Germany", "GB": "United Kingdom"}[region]
		}
		t.add(fmt.Sprintf("C%05d", 10001+i), first, last, mail(r, first, last, pick(r, domains)), phone(r, region),
			skewed(r, swedishCities).name, country, day(r, "2019-01-01", 1800), amount(r, 0, 5000))
	}
	t.dirt("first_name", 0.03, KindWhitespace, spaces(r))
	t.dirt("last_name", 0.03, KindWhitespace, spaces(r))
	t.dirt("last_name", 0.02, KindCase, recase(r))
	t.dirt("email", 0.06, KindEmail, shout(r))
	t.dirt("phone", 0.25, KindPhone, rephone(r, "SE"))
	t.dirt("city", 0.03, KindWhitespace, spaces(r))
	t.dirt("city", 0.04, KindCase, recase(r))
	t.dirt("city", 0.01, KindCase, both(r))
	t.dirt("city", 0.02, KindTypo, typo(r))
	t.dirt("country", 0.03, KindCase, recase(r))
	t.dirt("country", 0.015, KindTypo, typo(r))
	t.dirt("country", 0.01, KindTypo, variants(r, countryVariants))
	t.dirt("signup_date", 0.08, KindDate, redate(r, "02/01/2006"))
	t.dirt("signup_date", 0.03, KindDate, redate(r, "2 Jan 2006"))
	t.dirt("lifetime_value", 0.07, KindNull, lose(r))
	t.duplicate(10)
	return t
}

// currencyOf is each country's currency: a dependency with no violation.
var currencyOf = map[string]string{
	"Sweden": "SEK", "Norway": "NOK", "Denmark": "DKK", "Finland": "EUR", "Germany": "EUR", "France": "EUR",
	"United Kingdom": "GBP", "United States": "USD", "Netherlands": "EUR", "Spain": "EUR",
}

func orders(r *rand.Rand) *table {
	t := newTable(r, "02-orders", "web shop orders: statuses typed by hand, SKUs one letter apart (must stay), prices from a European spreadsheet",
		"order_id", "customer_id", "order_date", "status", "sku", "quantity", "unit_price", "country", "currency")
	colours := []string{"BLK", "BLU", "RED", "WHT"}
	for i := range 700 {
		country := skewed(r, countries)
		t.add(fmt.Sprintf("SO-%06d", 200001+i), fmt.Sprintf("C%05d", 10001+r.IntN(600)), day(r, "2024-01-01", 365),
			skewed(r, []string{"delivered", "shipped", "pending", "cancelled", "returned"}),
			fmt.Sprintf("SKU-%d-%s", 1001+r.IntN(12), skewed(r, colours)), fmt.Sprint(1+r.IntN(5)), amount(r, 5, 500),
			country, currencyOf[country])
	}
	t.dirt("order_date", 0.05, KindDate, redate(r, "2006/01/02"))
	t.dirt("order_date", 0.04, KindDate, redate(r, "Jan 2, 2006"))
	t.dirt("status", 0.05, KindCase, recase(r))
	t.dirt("status", 0.03, KindWhitespace, spaces(r))
	t.dirt("status", 0.015, KindTypo, typo(r))
	t.dirt("currency", 0.04, KindCase, recase(r))
	t.dirt("unit_price", 0.06, KindDecimal, comma(r))
	t.duplicate(12)
	return t
}

var streets = []string{"Storgatan", "Drottninggatan", "Kungsgatan", "Vasagatan", "Sveavägen", "Hamngatan", "Skolgatan",
	"Parkvägen", "Kyrkogatan", "Järnvägsgatan", "Ringvägen", "Östra Långgatan", "Västra Hamngatan", "Nygatan"}

func addresses(r *rand.Rand) *table {
	t := newTable(r, "03-addresses", "delivery addresses: a few cities that are not their postal code's, city spellings",
		"address_id", "street", "zip", "city", "country")
	type zc struct{ zip, city string }
	var all []zc
	for _, c := range swedishCities {
		for _, z := range c.zips {
			all = append(all, zc{z, c.name})
		}
	}
	for i := range 700 {
		z := pick(r, all)
		street := fmt.Sprintf("%s %d", pick(r, streets), 1+r.IntN(120))
		if r.IntN(4) == 0 {
			street += fmt.Sprintf(" lgh %d", 1001+r.IntN(300))
		}
		t.add(fmt.Sprintf("A%05d", 1+i), street, z.zip, z.city, "Sweden")
	}
	t.violate("city", 8)
	t.dirt("city", 0.03, KindCase, recase(r))
	t.dirt("city", 0.03, KindWhitespace, spaces(r))
	t.dirt("city", 0.02, KindTypo, typo(r))
	t.dirt("street", 0.02, KindWhitespace, spaces(r))
	return t
}

var titles = []string{"Account Executive", "Sales Manager", "CTO", "VP Engineering", "Office Manager", "Procurement Lead",
	"Marketing Director", "Operations Manager", "Founder", "Head of IT", "Buyer", "CFO"}

func contacts(r *rand.Rand) *table {
	t := newTable(r, "04-contacts", "US CRM contacts: phones in every American format, e-mails typed in forms, company names in capitals",
		"contact_id", "full_name", "company", "email", "phone", "state", "title")
	for i := range 600 {
		first, last := pick(r, firstNames), pick(r, lastNames)
		company := skewed(r, companies)
		domain := strings.ToLower(strings.Fields(company)[0]) + ".com"
		if r.IntN(3) == 0 {
			domain = pick(r, domains)
		}
		region := "US"
		if r.IntN(10) == 0 {
			region = "GB"
		}
		t.add(fmt.Sprint(100001+i), first+" "+last, company, mail(r, first, last, domain), phone(r, region),
			pick(r, usCities).state, pick(r, titles))
	}
	t.dirt("email", 0.07, KindEmail, shout(r))
	t.dirt("phone", 0.35, KindPhone, rephone(r, "US"))
	t.dirt("company", 0.03, KindWhitespace, spaces(r))
	t.dirt("company", 0.03, KindCase, recase(r))
	t.dirt("state", 0.04, KindCase, recase(r))
	t.dirt("full_name", 0.03, KindWhitespace, spaces(r))
	t.duplicate(8)
	return t
}

func sensors(r *rand.Rand) *table {
	t := newTable(r, "05-sensors", "warehouse sensor readings: one gateway writes decimal commas, readings resent, a sensor logged under another room",
		"reading_id", "sensor_id", "recorded_at", "location", "temperature_c", "humidity_pct", "battery_v", "status")
	t.delim = ';'
	locations := []string{"Warehouse A", "Warehouse B", "Cold Room 1", "Cold Room 2", "Loading Dock", "Office"}
	base := map[string]float64{"Warehouse A": 18, "Warehouse B": 17, "Cold Room 1": -18, "Cold Room 2": 4, "Loading Dock": 12, "Office": 21}
	sensorAt := make([]string, 20)
	for s := range sensorAt {
		sensorAt[s] = locations[s%len(locations)]
	}
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := range 700 {
		s := r.IntN(20)
		loc := sensorAt[s]
		at = at.Add(time.Duration(60+r.IntN(600)) * time.Second)
		status := "OK"
		switch n := r.IntN(50); {
		case n == 0:
			status = "FAIL"
		case n < 4:
			status = "WARN"
		}
		t.add(fmt.Sprint(500001+i), fmt.Sprintf("S-%02d", s+1), at.Format(time.RFC3339), loc,
			fmt.Sprintf("%.1f", base[loc]+4*r.NormFloat64()), fmt.Sprintf("%.1f", 35+20*r.Float64()),
			fmt.Sprintf("%.2f", 2.8+0.8*r.Float64()), status)
	}
	t.violate("location", 5)
	t.dirt("temperature_c", 0.12, KindDecimal, comma(r))
	t.dirt("humidity_pct", 0.07, KindNull, lose(r))
	t.dirt("location", 0.03, KindCase, recase(r))
	t.dirt("location", 0.02, KindWhitespace, spaces(r))
	t.duplicate(15)
	return t
}

var departments = map[string][]string{
	"Engineering":      {"Software Engineer", "Senior Software Engineer", "Engineering Manager", "QA Engineer", "DevOps Engineer"},
	"Sales":            {"Account Executive", "Sales Development Rep", "Sales Manager"},
	"Marketing":        {"Marketing Specialist", "Content Writer", "Marketing Manager"},
	"Finance":          {"Accountant", "Financial Analyst", "Controller"},
	"Human Resources":  {"HR Generalist", "Recruiter", "HR Manager"},
	"Customer Support": {"Support Agent", "Support Lead"},
	"Operations":       {"Operations Analyst", "Office Manager"},
	"Legal":            {"Legal Counsel", "Paralegal"},
}

var departmentNames = []string{"Engineering", "Sales", "Customer Support", "Marketing", "Operations", "Finance", "Human Resources", "Legal"}

func hr(r *rand.Rand) *table {
	t := newTable(r, "06-hr", "HR records: departments typed freely, hire dates in the German layout, salaries missing",
		"employee_id", "first_name", "last_name", "department", "job_title", "office", "hire_date", "salary", "manager_id")
	for i := range 500 {
		dept := skewed(r, departmentNames)
		t.add(fmt.Sprintf("E%04d", 1001+i), pick(r, firstNames), pick(r, lastNames), dept, pick(r, departments[dept]),
			skewed(r, []string{"Stockholm", "Berlin", "Göteborg", "London", "Malmö"}), day(r, "2010-01-01", 5400),
			fmt.Sprint(30000+100*r.IntN(600)), fmt.Sprintf("E%04d", 1001+r.IntN(40)))
	}
	t.dirt("department", 0.04, KindCase, recase(r))
	t.dirt("department", 0.02, KindTypo, typo(r))
	t.dirt("department", 0.02, KindWhitespace, spaces(r))
	t.dirt("hire_date", 0.10, KindDate, redate(r, "02.01.2006"))
	t.dirt("salary", 0.08, KindNull, lose(r))
	t.dirt("office", 0.02, KindWhitespace, spaces(r))
	t.dirt("last_name", 0.02, KindCase, recase(r))
	return t
}

func products(r *rand.Rand) *table {
	t := newTable(r, "07-products", "product catalogue: Shirts and Skirts (both real), weights with three decimals (1.250 kg), a few decimal commas",
		"sku", "product_name", "category", "price", "weight_kg", "supplier_country", "in_stock")
	adjectives := []string{"Classic", "Slim", "Organic", "Vintage", "Sport", "Linen", "Wool", "Summer", "Winter", "Everyday"}
	nouns := map[string]string{"Shirts": "Shirt", "Skirts": "Skirt", "Trousers": "Trousers", "Jackets": "Jacket", "Shoes": "Sneakers",
		"Socks": "Socks", "Hats": "Cap", "Bags": "Tote Bag"}
	cats := []string{"Shirts", "Trousers", "Jackets", "Skirts", "Shoes", "Socks", "Hats", "Bags"}
	for i := range 500 {
		cat := skewed(r, cats)
		t.add(fmt.Sprintf("P-%05d", 30001+i), pick(r, adjectives)+" "+nouns[cat]+fmt.Sprintf(" %d", 1+r.IntN(40)), cat,
			amount(r, 5, 300), fmt.Sprintf("%.3f", 0.1+4.9*r.Float64()), skewed(r, countries), pick(r, []string{"true", "true", "false"}))
	}
	t.dirt("category", 0.04, KindCase, recase(r))
	t.dirt("category", 0.015, KindTypo, typo(r))
	t.dirt("price", 0.05, KindDecimal, comma(r))
	t.dirt("weight_kg", 0.04, KindDecimal, comma(r))
	t.dirt("supplier_country", 0.02, KindCase, recase(r))
	t.dirt("supplier_country", 0.01, KindTypo, variants(r, countryVariants))
	t.dirt("in_stock", 0.03, KindCase, recase(r))
	return t
}

func invoices(r *rand.Rand) *table {
	t := newTable(r, "08-invoices-us", "US invoices: issue dates from an American accounting tool (month first), e-mails with spaces",
		"invoice_no", "customer_email", "issued", "due", "amount", "currency", "state")
	for i := range 600 {
		first, last := pick(r, firstNames), pick(r, lastNames)
		issued := day(r, "2023-01-01", 700)
		it, _ := time.Parse("2006-01-02", issued)
		t.add(fmt.Sprintf("INV-%06d", 700001+i), mail(r, first, last, pick(r, domains)), issued, it.AddDate(0, 0, 30).Format("2006-01-02"),
			amount(r, 20, 20000), "USD", skewed(r, usCities).state)
	}
	t.dirt("issued", 0.12, KindDate, redate(r, "01/02/2006"))
	t.dirt("customer_email", 0.05, KindEmail, shout(r))
	t.dirt("state", 0.03, KindCase, recase(r))
	return t
}

var referrers = []string{"https://www.google.com/", "https://news.ycombinator.com/", "https://www.linkedin.com/feed/",
	"https://t.co/x8Kd2", "https://www.reddit.com/r/dataengineering/", "https://duckduckgo.com/", ""}

func signups(r *rand.Rand) *table {
	t := newTable(r, "09-signups", "JSON Lines from a signup API: plans and countries typed by users, dates in whatever the form sent",
		"id", "email", "country", "signup_day", "plan", "referrer")
	t.format = "jsonl"
	for i := range 600 {
		first, last := pick(r, firstNames), pick(r, lastNames)
		t.add(fmt.Sprint(900001+i), mail(r, first, last, pick(r, domains)), skewed(r, countries), day(r, "2024-01-01", 300),
			skewed(r, []string{"free", "pro", "team", "enterprise"}), pick(r, referrers))
	}
	t.dirt("signup_day", 0.05, KindDate, redate(r, "2 Jan 2006"))
	t.dirt("signup_day", 0.05, KindDate, redate(r, "January 2, 2006"))
	t.dirt("plan", 0.05, KindCase, recase(r))
	t.dirt("plan", 0.02, KindWhitespace, spaces(r))
	t.dirt("country", 0.03, KindCase, recase(r))
	t.dirt("country", 0.02, KindTypo, typo(r))
	t.dirt("email", 0.06, KindEmail, shout(r))
	t.duplicate(6)
	return t
}

func appointments(r *rand.Rand) *table {
	t := newTable(r, "10-appointments", "clinic appointments merged from two booking systems: day-first and month-first dates in one column",
		"appointment_id", "patient_name", "clinic", "doctor", "date", "phone", "duration_min")
	clinics := []string{"Södermalm Clinic", "Kungsholmen Clinic", "Solna Health Centre", "Täby Clinic", "Nacka Health Centre"}
	var doctors []string
	for range 12 {
		doctors = append(doctors, "Dr "+pick(r, firstNames)+" "+pick(r, lastNames))
	}
	for i := range 500 {
		t.add(fmt.Sprintf("AP-%05d", 40001+i), pick(r, firstNames)+" "+pick(r, lastNames), skewed(r, clinics), pick(r, doctors),
			day(r, "2024-01-01", 360), phone(r, "SE"), pick(r, []string{"15", "30", "30", "30", "45", "60"}))
	}
	t.dirt("date", 0.08, KindDate, redate(r, "02/01/2006"))
	t.dirt("date", 0.04, KindDate, redate(r, "01/02/2006"))
	t.dirt("clinic", 0.03, KindWhitespace, spaces(r))
	t.dirt("clinic", 0.03, KindCase, recase(r))
	t.dirt("phone", 0.30, KindPhone, rephone(r, "SE"))
	t.dirt("duration_min", 0.06, KindNull, lose(r))
	return t
}

func shipments(r *rand.Rand) *table {
	t := newTable(r, "11-shipments", "US shipments: origin cities that are not their zip's, carriers in every case, compact dates",
		"shipment_id", "origin_zip", "origin_city", "dest_country", "weight_kg", "shipped_on", "carrier")
	type zc struct{ zip, city string }
	var all []zc
	for _, c := range usCities {
		for _, z := range c.zips {
			all = append(all, zc{z, c.name})
		}
	}
	for i := range 700 {
		z := pick(r, all)
		t.add(fmt.Sprintf("SH%07d", 3000001+i), z.zip, z.city, skewed(r, countries), fmt.Sprintf("%.1f", 0.5+40*r.Float64()*r.Float64()),
			day(r, "2024-01-01", 365), skewed(r, []string{"UPS", "FedEx", "DHL", "USPS", "PostNord"}))
	}
	t.violate("origin_city", 8)
	t.dirt("origin_city", 0.02, KindCase, recase(r))
	t.dirt("carrier", 0.05, KindCase, recase(r))
	t.dirt("dest_country", 0.02, KindCase, recase(r))
	t.dirt("dest_country", 0.015, KindTypo, typo(r))
	t.dirt("dest_country", 0.015, KindTypo, variants(r, countryVariants))
	t.dirt("weight_kg", 0.05, KindDecimal, comma(r))
	t.dirt("shipped_on", 0.06, KindDate, redate(r, "20060102"))
	return t
}

var comments = []string{
	"Great service, will come back", "The delivery was late", "OK", "ok", "Ok", "Too expensive for what you get",
	"Friendly staff", "friendly staff!", "App keeps crashing on login", "Loved it", "Not bad", "Could be better",
	"Support answered within an hour", "Wrong size delivered, exchange was easy", "meh", "Excellent!", "",
}

func survey(r *rand.Rand) *table {
	t := newTable(r, "12-survey", "customer survey: answers in every case, free-text comments that must stay as written",
		"response_id", "country", "age", "satisfaction", "comment", "submitted")
	at := time.Date(2024, 6, 1, 8, 0, 0, 0, time.UTC)
	for i := range 600 {
		at = at.Add(time.Duration(r.IntN(3600)) * time.Second)
		c := pick(r, comments)
		if c != "" && r.IntN(3) == 0 {
			c += fmt.Sprintf(" (order %d)", 200001+r.IntN(700))
		}
		t.add(fmt.Sprint(1+i), skewed(r, countries), fmt.Sprint(18+r.IntN(63)),
			skewed(r, []string{"Satisfied", "Very satisfied", "Neutral", "Dissatisfied", "Very dissatisfied"}), c,
			at.Format("2006-01-02 15:04:05"))
	}
	t.dirt("satisfaction", 0.04, KindCase, recase(r))
	t.dirt("satisfaction", 0.03, KindWhitespace, spaces(r))
	t.dirt("satisfaction", 0.01, KindCase, both(r))
	t.dirt("satisfaction", 0.02, KindTypo, typo(r))
	t.dirt("country", 0.03, KindCase, recase(r))
	t.dirt("country", 0.02, KindWhitespace, spaces(r))
	t.dirt("age", 0.07, KindNull, lose(r))
	return t
}

func stores(r *rand.Rand) *table {
	t := newTable(r, "13-stores", "weekly store revenue in Germany: Store 12 and Store 13 (both real), a city typed into the wrong row",
		"store_id", "store_name", "zip", "city", "region", "week", "revenue_eur", "manager")
	type store struct{ id, name, zip, city, region, manager string }
	var ss []store
	for i, c := range germanCities {
		for j, z := range c.zips {
			n := len(ss) + 1
			ss = append(ss, store{fmt.Sprintf("ST-%02d", n), fmt.Sprintf("Store %d", 10+n), z, c.name, c.state,
				pick(r, firstNames) + " " + pick(r, lastNames)})
			_, _ = i, j
		}
	}
	week := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for w := range 34 {
		for _, s := range ss {
			if r.IntN(10) == 0 {
				continue // a week not reported
			}
			t.add(s.id, s.name, s.zip, s.city, s.region, week.AddDate(0, 0, 7*w).Format("2006-01-02"), amount(r, 8000, 60000), s.manager)
		}
	}
	t.violate("city", 6)
	t.dirt("city", 0.03, KindCase, recase(r))
	t.dirt("region", 0.02, KindWhitespace, spaces(r))
	t.dirt("week", 0.06, KindDate, redate(r, "02.01.2006"))
	t.dirt("revenue_eur", 0.08, KindDecimal, comma(r))
	return t
}

func leads(r *rand.Rand) *table {
	t := newTable(r, "14-leads", "B2B leads from a UK marketing tool: lead sources in every case, British phone formats",
		"lead_id", "company", "contact_email", "phone", "source", "created", "score")
	for i := range 600 {
		first, last := pick(r, firstNames), pick(r, lastNames)
		region := "GB"
		if r.IntN(4) == 0 {
			region = pick(r, []string{"SE", "DE", "US"})
		}
		t.add(fmt.Sprintf("L-%05d", 50001+i), skewed(r, companies), mail(r, first, last, pick(r, domains)), phone(r, region),
			skewed(r, []string{"Website", "Referral", "LinkedIn", "Trade show", "Webinar", "Cold call"}), day(r, "2023-06-01", 500),
			fmt.Sprint(r.IntN(101)))
	}
	t.dirt("source", 0.05, KindCase, recase(r))
	t.dirt("source", 0.02, KindTypo, typo(r))
	t.dirt("phone", 0.30, KindPhone, rephone(r, "GB"))
	t.dirt("contact_email", 0.05, KindEmail, shout(r))
	t.dirt("company", 0.03, KindWhitespace, spaces(r))
	t.dirt("created", 0.05, KindDate, redate(r, "2 Jan 2006"))
	t.dirt("created", 0.05, KindDate, redate(r, "02/01/2006"))
	t.dirt("score", 0.06, KindNull, lose(r))
	t.duplicate(6)
	return t
}
