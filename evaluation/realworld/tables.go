package realworld

import (
	"strconv"
	"strings"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/internal/colgen"
)

// Non-personal labels, for brevity.
const (
	ident = classify.LabelIdentifier
	cat   = classify.LabelCategory
	num   = classify.LabelNumber
	money = classify.LabelMoney
	date  = classify.LabelDate
	ts    = classify.LabelDatetime
	flag  = classify.LabelBoolean
	text  = classify.LabelFreeText
	url   = classify.LabelURL
)

// Value kinds shared by several tables.
var (
	personName = k(classify.LabelPersonName, fullName)
	email      = k(classify.LabelEmail, emailOf)
	sexMF      = k(classify.LabelGender, zipf("M", "F"))
	genderWord = k(classify.LabelGender, zipf("Male", "Female", "Non-binary"))
	age        = k(classify.LabelAge, ints(18, 79))
	birthDate  = k(classify.LabelDateOfBirth, dob)
	usPhone    = k(classify.LabelPhone, nanp)
	street     = k(classify.LabelStreet, streetAddress)
	zip5       = k(classify.LabelPostalCode, func(g *gen) string { return g.Digits(5) })
	city       = k(cat, zipf(usCities...))
	state      = k(cat, zipf(usStates...))
	ipv4       = k(classify.LabelIP, func(g *gen) string { return g.IPv4() })
	macAddr    = k(classify.LabelMAC, mac)
	login      = k(classify.LabelUsername, username)
	vinNA      = k(classify.LabelVIN, northAmericanVIN)
	vinEU      = k(classify.LabelVIN, europeanVIN)
)

// tables lists the exported files of the corpus.
func tables() []table {
	return []table{
		customers(), churn(), hr(), payroll(), vehicles(), dealerStock(), cardTests(), cardTransactions(),
		students(), salaries(), survey(), accessLog(), wifiLeases(), travellers(), bankStatement(),
		webshopUsers(), onlineRetail(), appointments(), shopProducts(),
	}
}

// customers is a Kaggle-style mall customer list.
func customers() table {
	return table{name: "mall-customers", locale: "en-US", rows: 200, cols: []tableCol{
		c("Unnamed: 0", k(ident, rowIndex()), tidy).why("pandas index written to CSV"),
		c("CustomerID", k(ident, seq(1000)), tidy),
		c("Name", k(classify.LabelPersonName, mixed(0.85, customerName, pick(organisations...))), export).why("customers, some of them organisations"),
		c("Gender", k(classify.LabelGender, zipf("Female", "Male")), tidy),
		c("Age", age, tidy),
		c("Annual Income (k$)", k(money, ints(15, 137)), tidy),
		c("Spending Score (1-100)", k(num, ints(1, 99)), tidy),
		c("E-mail Address", email, export),
		c("Phone", usPhone, export).why("national format, many fictional 555 numbers"),
		c("Address", k(classify.LabelStreet, mixed(0.6, streetAddress, streetOnly)), export).why("many addresses without a house number"),
		c("City", city, tidy),
		c("Zip", zip5, export),
	}}
}

// churn is a telecom churn export.
func churn() table {
	return table{name: "telco-churn", locale: "en-US", rows: 300, cols: []tableCol{
		c("customerID", k(ident, func(g *gen) string { return g.Digits(4) + "-" + g.Chars(5, colgen.Upper) }), tidy),
		c("SEX", sexMF, export),
		c("SeniorCitizen", k(flag, zipf("0", "1")), tidy),
		c("Partner", k(flag, pick("Yes", "No")), tidy),
		c("tenure", k(num, ints(0, 72)), tidy),
		c("PhoneService", k(flag, pick("Yes", "No")), tidy),
		c("Contract", k(cat, zipf("Month-to-month", "Two year", "One year")), tidy),
		c("PaymentMethod", k(cat, zipf("Electronic check", "Mailed check", "Bank transfer (automatic)", "Credit card (automatic)")), tidy),
		c("MonthlyCharges", k(money, decimals(18, 119, 2)), tidy),
		c("Churn", k(flag, pick("Yes", "No")), tidy),
		c("Phone Number", k(classify.LabelPhone, func(g *gen) string { return "(555) " + g.Digits(3) + "-" + g.Digits(4) }), tidy).
			why("all fictional 555 numbers"),
	}}
}

// hr is an HR records export.
func hr() table {
	return table{name: "hr-records", locale: "en-US", rows: 250, cols: []tableCol{
		c("EmployeeNumber", k(ident, seq(1)), tidy),
		c("First Name", k(classify.LabelPersonName, func(g *gen) string { return g.given() }), tidy),
		c("Last Name", k(classify.LabelPersonName, func(g *gen) string { return g.surname() }), tidy),
		c("SEX", sexMF, tidy),
		c("DOB", birthDate, export),
		c("Age Band", k(classify.LabelAge, zipf("25-34", "35-44", "18-24", "45-54", "55-64", "65+")), tidy).why("age bands"),
		c("Department", k(cat, zipf("Research & Development", "Sales", "Human Resources")), tidy),
		c("JobRole", k(cat, zipf("Sales Executive", "Research Scientist", "Laboratory Technician", "Manager", "Healthcare Representative")), tidy),
		c("MaritalStatus", k(cat, zipf("Married", "Single", "Divorced")), tidy),
		c("SSN", k(classify.LabelSSN, ssn), export),
		c("Passport No.", k(classify.LabelPassport, passport), scraped),
		c("Driver License #", k(classify.LabelDriverLic, driverLicense), scraped),
		c("Home Address", street, export),
		c("Work Phone", usPhone, export),
		c("Hire Date", k(date, dates(2000, 2023, "2006-01-02")), tidy),
		c("YearsAtCompany", k(num, ints(0, 40)), tidy),
		c("PerformanceRating", k(cat, zipf("3", "4")), tidy),
	}}
}

// payroll is a payroll export with bank details.
func payroll() table {
	return table{name: "payroll", locale: "en-US", rows: 180, cols: []tableCol{
		c("Employee", personName, tidy),
		c("Bank Account", k(classify.LabelBankAccount, bankAccount), export),
		c("Routing Number", k(ident, routingNumber), tidy).why("names the bank, not the account holder"),
		c("Acct No", k(classify.LabelBankAccount, func(g *gen) string { return g.Digits(g.Between(9, 12)) }), tidy),
		c("Gross Pay", k(money, dollars(1200, 9800)), tidy),
		c("Net Pay", k(money, decimals(900, 7000, 2)), tidy),
		c("Pay Date", k(date, dates(2023, 2023, "01/02/2006")), tidy),
		c("Pay Period", k(cat, zipf("Biweekly", "Monthly", "Weekly")), tidy),
		c("Cost Center", k(ident, func(g *gen) string { return g.Digits(5) }), tidy).why("zip-like codes that are no postal codes"),
	}}
}

// vehicles is a used-car listing scrape with VINs.
func vehicles() table {
	return table{name: "vehicles", locale: "en-US", rows: 300, cols: []tableCol{
		c("id", k(ident, seq(7300000000)), tidy),
		c("url", k(url, siteURL("denver.craigslist.org")), tidy).why("listing pages"),
		c("region", k(cat, zipf("denver", "seattle", "austin", "boston", "atlanta")), tidy),
		c("price", k(money, ints(500, 60000)), tidy),
		c("year", k(num, ints(1998, 2022)), tidy),
		c("manufacturer", k(cat, zipf("ford", "chevrolet", "toyota", "honda", "nissan", "jeep", "ram", "gmc")), export),
		c("condition", k(cat, zipf("good", "excellent", "like new", "fair", "salvage")), scraped),
		c("odometer", k(num, ints(0, 250000)), export),
		c("VIN", vinNA, scraped).why("North American VINs with check digits"),
		c("paint_color", k(cat, zipf("white", "black", "silver", "blue", "red", "grey")), scraped),
		c("image_url", k(url, func(g *gen) string {
			return "https://images.craigslist.org/" + g.Chars(17, colgen.Alnum) + "_600x450.jpg"
		}), tidy),
		c("posting_date", k(ts, instants(2021, 2021, "2006-01-02T15:04:05-0700")), tidy),
	}}
}

// dealerStock is a European dealer's stock list.
func dealerStock() table {
	return table{name: "dealer-stock", locale: "de-DE", rows: 120, cols: []tableCol{
		c("Stock #", k(ident, code("ST", 5, "0123456789")), tidy),
		c("Fahrgestellnummer", vinEU, tidy).why("European VINs: the check digit is not used"),
		c("vin_number", k(classify.LabelVIN, mixed(0.5, northAmericanVIN, europeanVIN)), export),
		c("Model", k(cat, zipf("Golf", "Passat", "3er", "C-Klasse", "Clio", "Octavia", "XC60")), tidy),
		c("Model Year", k(num, ints(2012, 2024)), tidy),
		c("Engine", k(cat, zipf("2.0 TDI", "1.5 TSI", "320d", "1.6 dCi", "B4 AWD")), tidy),
		c("Price EUR", k(money, ints(8000, 52000)), tidy),
		c("Firmware", k(cat, zipf("1.2.0", "1.2.1", "2.0.4", "2.1.0", "3.0.7")), tidy).why("version strings"),
	}}
}

// cardTests is payment test data as generators make it.
func cardTests() table {
	return table{name: "card-test-data", locale: "en-US", rows: 150, cols: []tableCol{
		c("Card Number", k(classify.LabelPaymentCard, testCard), tidy).why("16 digits with issuer prefixes, failing Luhn"),
		c("Card Type", k(cat, zipf("Visa", "MasterCard", "Discover")), tidy),
		c("Cardholder Name", k(classify.LabelPersonName, func(g *gen) string { return strings.ToUpper(fullName(g)) }), tidy),
		c("CVV", k(num, func(g *gen) string { return g.Digits(3) }), tidy),
		c("Expiry", k(cat, func(g *gen) string { return twoDigits(g.Between(1, 12)) + "/" + strconv.Itoa(g.Between(25, 30)) }), tidy),
		c("Billing Zip", zip5, tidy),
	}}
}

// cardTransactions is a card processor's transaction export.
func cardTransactions() table {
	return table{name: "card-transactions", locale: "en-US", rows: 220, cols: []tableCol{
		c("Transaction ID", k(ident, func(g *gen) string { return g.UUID(g.HexString(32)) }), tidy),
		c("card_number", k(classify.LabelPaymentCard, realCard), export),
		c("Amount", k(money, dollars(1, 900)), tidy),
		c("Merchant", k(cat, zipf("AMAZON", "WALMART", "SHELL", "STARBUCKS", "UBER", "NETFLIX")), tidy),
		c("Status", k(cat, zipf("approved", "declined", "pending", "refunded")), tidy),
		c("Auth Code", k(ident, code("", 6, colgen.UpperAlnum)), tidy),
		c("Timestamp", k(ts, instants(2023, 2023, "2006-01-02 15:04:05")), tidy),
		c("Client IP", ipv4, export),
	}}
}

// students is a school results table.
func students() table {
	return table{name: "students", locale: "en-US", rows: 160, cols: []tableCol{
		c("student_id", k(ident, seq(20230001)), tidy),
		c("Name", personName, export),
		c("gender", k(classify.LabelGender, zipf("female", "male")), tidy),
		c("Age", k(classify.LabelAge, ints(14, 19)), tidy),
		c("parental level of education", k(cat, zipf("some college", "associate's degree", "high school", "bachelor's degree", "master's degree")), tidy),
		c("lunch", k(cat, zipf("standard", "free/reduced")), tidy),
		c("math score", k(num, ints(20, 100)), tidy),
		c("reading score", k(num, ints(25, 100)), tidy),
		c("Grade", k(cat, zipf("9", "10", "11", "12")), tidy),
		c("Guardian Phone", k(classify.LabelPhone, mixed(0.5, nanp, ukPhone)), export),
		c("School", k(cat, zipf("Lincoln High School", "Roosevelt High", "Westview Academy", "St. Mary's")), tidy),
	}}
}

// salaries is a data-science salaries table.
func salaries() table {
	return table{name: "ds-salaries", locale: "multi", rows: 250, cols: []tableCol{
		c("work_year", k(num, ints(2020, 2023)), tidy),
		c("experience_level", k(cat, zipf("SE", "MI", "EN", "EX")), tidy),
		c("employment_type", k(cat, zipf("FT", "PT", "CT", "FL")), tidy),
		c("job_title", k(cat, zipf("Data Scientist", "Data Engineer", "Data Analyst", "Machine Learning Engineer")), tidy),
		c("salary", k(money, ints(30000, 300000)), tidy),
		c("salary_currency", k(cat, zipf("USD", "EUR", "GBP", "INR", "CAD")), tidy),
		c("salary_in_usd", k(money, ints(30000, 300000)), tidy),
		c("employee_residence", k(cat, zipf("US", "GB", "CA", "DE", "IN", "FR", "ES")), tidy),
		c("remote_ratio", k(cat, zipf("100", "0", "50")), tidy),
		c("company_size", k(cat, zipf("M", "L", "S")), tidy).why("M/L/S sizes, not genders"),
	}}
}

// survey is a public survey export.
func survey() table {
	return table{name: "survey", locale: "multi", rows: 220, cols: []tableCol{
		c("Timestamp", k(ts, instants(2022, 2022, "1/2/2006 15:04:05")), tidy),
		c("Age", k(classify.LabelAge, zipf("25-34", "18-24", "35-44", "45-54", "55-64", "65 or older", "Under 18")), tidy).why("age bands"),
		c("Sex", k(classify.LabelGender, zipf("M", "F", "M", "F", "Prefer not to say")), export),
		c("Country", k(cat, zipf("United States", "India", "United Kingdom", "Germany", "Canada", "Brazil")), tidy),
		c("Years of experience", k(num, ints(0, 40)), tidy),
		c("Favourite language", k(cat, zipf("Python", "JavaScript", "Java", "C#", "Go", "Rust")), export),
		c("Employment", k(cat, zipf("Employed full-time", "Student", "Independent contractor", "Not employed")), tidy),
		c("Response ID", k(ident, func(g *gen) string { return "R_" + g.Chars(15, colgen.Alnum) }), tidy),
	}}
}

// accessLog is a web server log.
func accessLog() table {
	return table{name: "access-log", locale: "-", rows: 300, cols: []tableCol{
		c("time", k(ts, instants(2023, 2023, "02/Jan/2006:15:04:05 -0700")), tidy),
		c("remote_addr", ipv4, tidy),
		c("user", login, scraped).why("HTTP auth user, '-' when anonymous"),
		c("method", k(cat, zipf("GET", "POST", "HEAD", "PUT")), tidy),
		c("request_url", k(url, siteURL("shop.example.com")), tidy),
		c("status", k(cat, zipf("200", "304", "404", "301", "500")), tidy),
		c("bytes", k(num, ints(0, 250000)), tidy),
		c("referrer", k(url, referrer), scraped),
		c("user_agent", k(text, userAgent), tidy),
		c("response_time_ms", k(num, decimals(0.5, 900, 1)), tidy),
		c("session_id", k(ident, hexDigest(32)), tidy),
		c("app_version", k(cat, zipf("3.2.1", "3.2.0", "3.1.9", "3.3.0-beta")), tidy),
	}}
}

// wifiLeases is a DHCP lease and device inventory export.
func wifiLeases() table {
	return table{name: "wifi-leases", locale: "-", rows: 200, cols: []tableCol{
		c("MAC Address", macAddr, tidy),
		c("Client MAC", k(classify.LabelMAC, mixed(0.5, mac, ciscoMAC)), export),
		c("mac", k(classify.LabelMAC, ciscoMAC), tidy).why("Cisco dotted form"),
		c("IP", ipv4, tidy),
		c("Hostname", k(ident, func(g *gen) string {
			return g.Pick("LAPTOP-", "DESKTOP-", "iPhone-", "android-") + g.Chars(7, colgen.UpperAlnum)
		}), tidy),
		c("Vendor", k(cat, zipf("Apple", "Samsung", "Dell", "Intel", "Lenovo", "Espressif")), tidy),
		c("Lease Expires", k(ts, instants(2024, 2024, "2006-01-02 15:04:05")), tidy),
		c("Firmware Version", k(cat, zipf("10.0.19045.2965", "10.0.22621.1702", "17.1.1", "14.0.0")), tidy),
		c("Serial Number", k(ident, code("C02", 9, colgen.UpperAlnum)), tidy),
		c("File MD5", k(ident, hexDigest(32)), tidy).why("hex digests"),
	}}
}

// travellers is a travel booking export with document numbers.
func travellers() table {
	return table{name: "bookings", locale: "multi", rows: 140, cols: []tableCol{
		c("Booking Ref", k(ident, code("", 6, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789")), tidy).why("PNR codes, shaped like document numbers"),
		c("Passenger Name", k(classify.LabelPersonName, func(g *gen) string { return strings.ToUpper(g.surname()) + "/" + strings.ToUpper(g.given()) }), tidy).
			why("airline SURNAME/GIVEN form"),
		c("Passport Number", k(classify.LabelPassport, passport), tidy),
		c("Passport Expiry", k(date, dates(2025, 2034, "2006-01-02")), tidy),
		c("Nationality", k(cat, zipf("USA", "GBR", "DEU", "FRA", "IND", "CAN")), tidy),
		c("DL Number", k(classify.LabelDriverLic, driverLicense), export),
		c("Date of Birth", birthDate, tidy),
		c("Mobile", k(classify.LabelPhone, mixed(0.5, ukPhone, frPhone)), export),
		c("Flight", k(cat, zipf("BA117", "AF1680", "LH400", "UA901")), tidy),
		c("Fare", k(money, dollars(89, 2400)), tidy),
	}}
}

// bankStatement is a bank's CSV statement export.
func bankStatement() table {
	return table{name: "bank-export", locale: "en-GB", rows: 200, cols: []tableCol{
		c("Date", k(date, dates(2023, 2023, "02/01/2006")), tidy),
		c("Description", k(text, sentence), tidy),
		c("Amount", k(money, decimals(-900, 2500, 2)), tidy),
		c("Balance", k(money, decimals(100, 9000, 2)), tidy),
		c("Account Number", k(classify.LabelBankAccount, bankAccount), tidy),
		c("Counterparty IBAN", k(classify.LabelIBAN, iban), export),
		c("BIC", k(cat, zipf("BARCGB22", "DEUTDEFF", "BNPAFRPP", "NWBKGB2L")), tidy),
		c("Sort Code", k(ident, func(g *gen) string { return g.Digits(2) + "-" + g.Digits(2) + "-" + g.Digits(2) }), tidy),
		c("Transaction Type", k(cat, zipf("DEB", "FPI", "FPO", "DD", "SO", "BGC")), tidy),
	}}
}

// webshopUsers is a web application's user table.
func webshopUsers() table {
	return table{name: "webshop-users", locale: "en-US", rows: 180, cols: []tableCol{
		c("id", k(ident, seq(1)), tidy),
		c("username", login, tidy),
		c("email", email, tidy),
		c("password", k(classify.LabelPasswordHash, func(g *gen) string { return g.Bcrypt("10", "12") }), tidy),
		c("first_name", k(classify.LabelPersonName, func(g *gen) string { return g.given() }), export),
		c("last_name", k(classify.LabelPersonName, func(g *gen) string { return g.surname() }), export),
		c("date_joined", k(ts, instants(2018, 2023, "2006-01-02 15:04:05")), tidy),
		c("last_login", k(ts, instants(2023, 2023, "2006-01-02 15:04:05")), scraped),
		c("is_staff", k(flag, zipf("False", "True")), tidy),
		c("twitter_handle", k(classify.LabelUsername, handle), scraped),
		c("avatar_url", k(url, func(g *gen) string { return "https://cdn.example.com/avatars/" + g.HexString(16) + ".png" }), export),
		c("last_ip", ipv4, export),
		c("Account Number", k(ident, seq(100000)), tidy).why("a CRM's running numbers, not bank accounts"),
	}}
}

// onlineRetail is an online shop's order lines (UCI Online Retail style).
func onlineRetail() table {
	return table{name: "online-retail", locale: "en-GB", rows: 300, cols: []tableCol{
		c("InvoiceNo", k(ident, seq(536365)), tidy),
		c("StockCode", k(ident, func(g *gen) string { return g.Digits(5) + g.Pick("", "", "A", "B", "C") }), tidy),
		c("Quantity", k(num, ints(1, 48)), tidy),
		c("InvoiceDate", k(ts, instants(2010, 2011, "1/2/2006 15:04")), tidy),
		c("UnitPrice", k(money, decimals(0.3, 25, 2)), tidy),
		c("CustomerID", k(ident, func(g *gen) string { return strconv.Itoa(g.Between(12346, 18287)) + ".0" }), export),
		c("Country", k(cat, zipf("United Kingdom", "Germany", "France", "EIRE", "Spain")), tidy),
		c("Product URL", k(url, siteURL("www.example-giftshop.co.uk")), tidy),
		c("SKU", k(ident, func(g *gen) string { return "SKU-" + g.Digits(5) + "-" + g.Pick("BL", "RD", "GR", "XL") }), tidy),
		c("Order Number", k(ident, func(g *gen) string { return "ORD-2023-" + g.Digits(6) }), tidy),
		c("Tracking Number", k(ident, func(g *gen) string { return "1Z" + g.Chars(6, colgen.UpperAlnum) + g.Digits(10) }), tidy),
		c("Store Code", k(ident, func(g *gen) string { return g.Digits(5) }), tidy).why("zip-like"),
	}}
}

// appointments is a clinic's appointment export (Kaggle no-show style).
func appointments() table {
	return table{name: "appointments", locale: "pt-BR", rows: 200, cols: []tableCol{
		c("PatientId", k(ident, func(g *gen) string { return g.Digits(14) }), tidy),
		c("AppointmentID", k(ident, seq(5642903)), tidy),
		c("Gender", sexMF, tidy),
		c("ScheduledDay", k(ts, instants(2016, 2016, "2006-01-02T15:04:05Z")), tidy),
		c("Age", age, tidy),
		c("Neighbourhood", k(cat, zipf("JARDIM CAMBURI", "MARIA ORTIZ", "RESISTÊNCIA", "JARDIM DA PENHA", "ITARARÉ")), tidy),
		c("SMS_received", k(flag, zipf("0", "1")), tidy),
		c("No-show", k(flag, zipf("No", "Yes")), tidy),
		c("Street", k(classify.LabelStreet, mixed(0.5, streetOnly, streetAddress)), export),
	}}
}

// shopProducts is a Shopify-style product export: its decoys are named
// like personal data (Handle, Gift Card) or shaped like it (17-character
// part numbers, grouped licence keys).
func shopProducts() table {
	return table{name: "shop-products", locale: "en-US", rows: 150, cols: []tableCol{
		c("Handle", k(ident, func(g *gen) string {
			return strings.ToLower(g.Pick("classic", "mens", "womens", "kids", "organic", "vintage")) + "-" +
				g.Pick("rain", "leather", "wool", "linen", "denim") + "-" + g.Pick("jacket", "boots", "scarf", "shirt", "tote") +
				g.Pick("", "", "-"+strconv.Itoa(g.Between(2, 9)))
		}), tidy).why("product URL slugs under a name that also means a user handle"),
		c("Title", k(cat, zipf("Classic Rain Jacket", "Leather Boots", "Wool Scarf", "Linen Shirt", "Denim Tote")), tidy),
		c("Vendor", k(cat, zipf("Northwind", "Contoso", "Fabrikam", "Tailspin")), tidy),
		c("Variant SKU", k(ident, code("NW-", 6, colgen.UpperAlnum)), tidy),
		c("Variant Price", k(money, decimals(9, 240, 2)), tidy),
		c("Gift Card", k(flag, zipf("FALSE", "TRUE")), tidy).why("a card name over booleans"),
		c("Image Src", k(url, func(g *gen) string {
			return "https://cdn.shopify.com/s/files/1/0" + g.Digits(6) + "/products/" + g.HexString(12) + ".jpg"
		}), tidy),
		c("Part Number", k(ident, code("", 17, vinAlphabet)), tidy).why("17 characters of the VIN alphabet"),
		c("License Key", k(ident, func(g *gen) string {
			return g.Chars(5, colgen.UpperAlnum) + "-" + g.Chars(5, colgen.UpperAlnum) + "-" + g.Chars(5, colgen.UpperAlnum)
		}), tidy),
		c("Barcode", k(ident, func(g *gen) string { return g.EAN13("0" + g.Digits(2)) }), tidy),
	}}
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
