package columns

import (
	"strconv"
	"strings"
	"time"

	"github.com/dqs/dqs/internal/colgen"
)

// nonPersonalSpecs are ordinary business columns. Many are hard negatives:
// they look like, or are named like, personal data without being it.
func nonPersonalSpecs() []spec {
	var s []spec
	s = append(s, identifierSpecs()...)
	s = append(s, categorySpecs()...)
	s = append(s, numberSpecs()...)
	s = append(s, moneySpecs()...)
	s = append(s, temporalSpecs()...)
	s = append(s, booleanSpecs()...)
	s = append(s, textSpecs()...)
	return s
}

// counter returns a value function counting up from start, as exported ids
// are: mostly consecutive, with gaps where rows were deleted.
func counter(start int64, width int) func(g *gen) string {
	next := start
	return func(g *gen) string {
		next += 1 + int64(g.IntN(3)/2)
		if width > 0 {
			return sprintf("%0*d", width, next)
		}
		return strconv.FormatInt(next, 10)
	}
}

func identifierSpecs() []spec {
	const id = "identifier"
	return []spec{
		col("id-uuid", "id", id, "-", clean, (*gen).uuid),
		col("id-seq", "customer_id", id, "-", light, counter(100000, 0)),
		col("id-order-random", "order_number", id, "-", light, func(g *gen) string { return strconv.Itoa(g.Between(1, 9)) + g.Digits(9) }).
			why("ten random digits, like unformatted phone numbers"),
		col("id-order-07", "ordernr", id, "sv-SE", clean, counter(701000000, 10)).
			why("zero-padded consecutive numbers starting 07, like Swedish mobiles"),
		col("id-sku", "sku", id, "-", light, func(g *gen) string { return "SKU-" + g.Chars(4, colgen.UpperAlnum) + "-" + g.Digits(3) }),
		col("id-code-alnum", "code", id, "-", light, func(g *gen) string { return g.Chars(6, colgen.UpperAlnum) }),
		col("id-code-5digit", "code", id, "-", light, func(g *gen) string { return strconv.Itoa(g.Between(10000, 99999)) }).
			why("5-digit codes, like postal codes"),
		col("id-product-luhn", "product_code", id, "-", clean, func(g *gen) string { return colgen.LuhnComplete(g.Pick("8", "9", "1") + g.Digits(14)) }).
			why("16 digits passing Luhn without a card issuer prefix"),
		col("id-imei", "imei", id, "-", light, func(g *gen) string { return colgen.LuhnComplete(g.Pick("35", "86", "01", "49") + g.Digits(12)) }).
			why("15-digit Luhn-valid device ids"),
		col("id-ean", "ean", id, "-", clean, func(g *gen) string { return g.EAN13(g.Pick("73", "40", "64", "57", "70")) }),
		col("id-commit", "commit_sha", id, "-", clean, func(g *gen) string { return g.HexString(40) }).why("hex commit hashes"),
		col("id-git-short", "rev", id, "-", clean, func(g *gen) string { return g.HexString(8)[:7] }),
		col("id-checksum", "file_checksum", id, "-", clean, func(g *gen) string { return g.HexString(64) }),
		col("id-orgnr-se", "org_nr", id, "sv-SE", light, func(g *gen) string {
			v := colgen.LuhnComplete(g.Pick("55", "556", "559", "802", "716")[:2] + g.Digits(7))
			return v[:6] + "-" + v[6:]
		}).why("Swedish company numbers: Luhn like personnummer, month ≥ 20"),
		col("id-ytunnus", "y_tunnus", id, "fi-FI", light, finnishBusinessID),
		col("id-orgnr-no", "organisasjonsnummer", id, "nb-NO", light, norwegianOrgNumber),
		col("id-cvr", "cvr", id, "da-DK", light, func(g *gen) string { return strconv.Itoa(g.Between(10000000, 45999999)) }).
			why("Danish company numbers; name 'cvr' is close to 'cpr'"),
		col("id-invoice-date", "invoice_no", id, "-", light, func(g *gen) string {
			return g.Date(2021, 2024).Format("20060102") + "-" + sprintf("%04d", g.Between(1, 300))
		}).why("YYYYMMDD-NNNN like a long personnummer"),
		col("id-batch", "batch_no", id, "-", light, func(g *gen) string {
			return g.Date(2022, 2024).Format("060102") + "-" + sprintf("%04d", g.Between(1, 9999))
		}).why("YYMMDD-NNNN like personnummer and CPR"),
		col("id-ticket", "ticket_id", id, "-", clean, counter(12345, 7)),
		col("id-tracking", "tracking_number", id, "-", light, func(g *gen) string { return "1Z" + g.Chars(6, colgen.UpperAlnum) + g.Digits(10) }),
		col("id-booking", "booking_ref", id, "-", clean, func(g *gen) string { return g.Chars(6, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789") }),
		col("id-kundnr", "kundnummer", id, "sv-SE", light, func(g *gen) string { return strconv.Itoa(g.Between(1000000, 9999999)) }),
		col("id-isbn", "isbn", id, "-", clean, func(g *gen) string {
			e := g.EAN13("978" + g.Pick("91", "3", "0", "951"))
			return e[:3] + "-" + e[3:5] + "-" + e[5:9] + "-" + e[9:12] + "-" + e[12:]
		}),
		col("id-hostname", "hostname", id, "-", clean, func(g *gen) string {
			return g.Pick("web", "api", "db", "cache", "worker") + "-" + sprintf("%02d", g.Between(1, 40)) + "." + g.Pick("prod", "staging") + "." + g.Pick("eu-north-1", "us-east-1") + ".internal"
		}),
		col("id-ssn-like", "code", id, "-", clean, func() func(g *gen) string {
			next := counter(2999, 4)
			return func(g *gen) string { return "100-20-" + next(g) }
		}()).why("consecutive numbers formatted like SSNs"),
		col("id-row", "row_id", id, "-", clean, counter(0, 0)).rows(25),
		col("id-nohint", "col_1", id, "-", clean, (*gen).uuid),
		col("id-union", "union_id", id, "-", clean, counter(1, 0)).why("SQL-style id; 'union' hints trade unions"),
		col("id-location", "location_id", id, "-", light, func(g *gen) string { return "LOC-" + g.Digits(5) }),
	}
}

// finnishBusinessID is a Y-tunnus: seven digits, a dash and a mod-11 check.
func finnishBusinessID(g *gen) string {
	for {
		d := sprintf("%07d", g.Between(100000, 3299999))
		w := []int{7, 9, 10, 5, 8, 4, 2}
		s := 0
		for i := range 7 {
			s += int(d[i]-'0') * w[i]
		}
		r := s % 11
		if r == 1 {
			continue
		}
		if r != 0 {
			r = 11 - r
		}
		return d + "-" + strconv.Itoa(r)
	}
}

// norwegianOrgNumber is nine digits with a mod-11 check digit.
func norwegianOrgNumber(g *gen) string {
	for {
		d := g.Pick("8", "9") + g.Digits(7)
		w := []int{3, 2, 7, 6, 5, 4, 3, 2}
		s := 0
		for i := range 8 {
			s += int(d[i]-'0') * w[i]
		}
		r := 11 - s%11
		if r == 10 {
			continue
		}
		if r == 11 {
			r = 0
		}
		return d + strconv.Itoa(r)
	}
}

func categorySpecs() []spec {
	const cat = "category"
	company := func(g *gen) string {
		return g.Zipf(companyStems) + " " + g.Pick("Logistics", "Foods", "Systems", "Energy", "Bygg") + " " + g.Pick(companySuffixes...)
	}
	var versions []string
	for i := range 30 {
		v := sprintf("%d.%d.%d", 1+i/12, i%12, (i*7)%5)
		if i%3 == 0 {
			v += "." + strconv.Itoa(1000+i*137)
		}
		versions = append(versions, v)
	}
	var cities []string
	for _, cc := range []string{"SE", "FI", "NO", "DK", "DE", "FR", "GB"} {
		cities = append(cities, countries[cc].cities...)
	}
	return []spec{
		col("cat-status", "status", cat, "-", light, fixed("active", "pending", "closed", "cancelled", "on_hold")),
		col("cat-country", "country", cat, "-", typical, fixed("SE", "FI", "NO", "DK", "DE", "GB", "FR", "US", "NL")),
		col("cat-currency", "currency", cat, "-", clean, fixed("EUR", "SEK", "NOK", "DKK", "USD", "GBP")),
		col("cat-city", "city", cat, "multi", typical, fixed(cities...)).why("place names, capitalised like person names"),
		col("cat-phone-type", "phone_type", cat, "-", light, fixed("mobile", "home", "work", "fax")),
		col("cat-card-brand", "card_brand", cat, "-", light, fixed("Visa", "Mastercard", "American Express", "Maestro")),
		col("cat-card-type", "card_type", cat, "-", light, fixed("Debit", "Credit", "Prepaid")),
		col("cat-product", "product_name", cat, "-", light, func(g *gen) string { return g.Zipf(productAdjectives) + " " + g.Zipf(productWords) }),
		col("cat-company", "name", cat, "multi", light, company).why("company names in a column called name"),
		col("cat-size", "size", cat, "-", clean, fixed("M", "L", "S", "XL", "XS", "XXL")),
		col("cat-party", "party", cat, "-", light, fixed("buyer", "seller", "guarantor", "broker")).why("contract parties"),
		col("cat-condition", "condition", cat, "-", light, fixed("new", "used", "refurbished", "damaged")).why("product condition"),
		col("cat-address-type", "address_type", cat, "-", light, fixed("home", "billing", "shipping", "work")),
		col("cat-email-domain", "email_domain", cat, "-", light, fixed(emailDomains[:12]...)),
		col("cat-pw-strength", "password_strength", cat, "-", light, fixed("medium", "strong", "weak")),
		col("cat-pass-fail", "pass", cat, "-", light, fixed("PASS", "FAIL", "PASS", "SKIPPED")).why("test results; 'pass' hints passwords"),
		col("cat-dept", "avdelning", cat, "sv-SE", light, fixed("Ekonomi", "IT", "HR", "Försäljning", "Lager", "Kundtjänst", "Ledning")),
		col("cat-priority", "priority", cat, "-", clean, fixed("low", "medium", "high", "critical")),
		col("cat-language", "language", cat, "-", light, fixed("sv-SE", "en-GB", "fi-FI", "de-DE", "nb-NO", "da-DK", "fr-FR")),
		col("cat-ip-country", "ip_country", cat, "-", light, fixed("SE", "US", "DE", "FI", "GB", "NL", "CN")),
		col("cat-race-class", "race_class", cat, "-", light, fixed("Class 1", "Class 2", "Class 3", "Handicap", "Maiden", "Listed")).why("horse racing"),
		col("cat-payment", "payment_method", cat, "-", light, fixed("card", "invoice", "swish", "klarna", "paypal", "bank_transfer")),
		col("cat-version", "app_version", cat, "-", light, fixed(versions...)).why("version strings, some with four parts like IPv4"),
		col("cat-nohint", "col_c", cat, "-", light, fixed("A1", "B2", "C3", "A2", "B1")),
		col("cat-nationality", "nationality", cat, "en-GB", light, fixed("Swedish", "British", "German", "Finnish", "Indian", "Polish", "Chinese", "Norwegian", "Pakistani", "Danish")).
			why("nationality is not an Art. 9 category; some values double as ethnicities"),
		col("cat-region", "region", cat, "multi", light, fixed("Stockholms län", "Västra Götaland", "Skåne", "Uusimaa", "Oslo", "Hovedstaden", "Bayern", "Île-de-France")),
	}
}

func numberSpecs() []spec {
	const n = "number"
	ints := func(lo, hi int) func(g *gen) string {
		return func(g *gen) string { return strconv.Itoa(g.Between(lo, hi)) }
	}
	floats := func(lo, hi float64, d int) func(g *gen) string {
		return func(g *gen) string { return num(g.Float(lo, hi), d) }
	}
	return []spec{
		col("num-qty", "quantity", n, "-", light, ints(0, 120)).why("0–120 like ages"),
		col("num-units", "units_shipped", n, "-", light, ints(10000, 99999)).why("5-digit quantities like postal codes"),
		col("num-temp", "temperature", n, "-", light, floats(-30, 40, 1)),
		col("num-weight", "weight_kg", n, "-", light, floats(0.2, 80, 2)),
		col("num-score", "score", n, "-", clean, floats(0, 100, 2)),
		col("num-rating", "rating", n, "-", light, ints(1, 5)),
		col("num-latency", "latency_ms", n, "-", clean, floats(0.5, 900, 3)).why("decimals like coordinates; 'lat'"),
		col("num-views", "page_views", n, "-", light, ints(0, 250000)),
		col("num-mileage", "mileage", n, "-", light, ints(0, 300000)),
		col("num-storage", "storage_gb", n, "-", clean, ints(1, 120)).why("'storage' contains 'age'"),
		col("num-passrate", "pass_rate", n, "-", clean, floats(0, 1, 3)),
		col("num-party-size", "party_size", n, "-", light, ints(1, 12)).why("restaurant bookings; 'party'"),
		col("num-year", "year", n, "-", clean, ints(1990, 2024)),
		col("num-completion", "completion_pct", n, "-", clean, floats(0, 100, 1)),
		col("num-health", "health_score", n, "-", clean, ints(0, 100)).why("service health, not a person's"),
		col("num-diag-count", "diagnosis_count", n, "-", light, ints(0, 9)),
		col("num-invoice-age", "invoice_age_days", n, "-", light, ints(0, 365)),
		col("num-height", "height_cm", n, "-", light, ints(150, 205)),
		col("num-nohint", "col_n", n, "-", clean, floats(-1000, 1000, 4)),
		col("num-sentiment", "sentiment", n, "-", clean, floats(-1, 1, 4)).why("signed decimals in ±1, like coordinates"),
		col("num-lon-like", "exchange_rate", n, "-", clean, floats(9.5, 12.5, 4)),
	}
}

func moneySpecs() []spec {
	const m = "money"
	amt := func(lo, hi float64) func(g *gen) float64 { return func(g *gen) float64 { return g.Float(lo, hi) } }
	sv := func(f float64) string {
		s := num(f, 2)
		intPart, frac, _ := strings.Cut(s, ".")
		if len(intPart) > 3 {
			intPart = intPart[:len(intPart)-3] + " " + intPart[len(intPart)-3:]
		}
		return intPart + "," + frac
	}
	de := func(f float64) string { return strings.ReplaceAll(sv(f), " ", ".") }
	a := amt(1, 5000)
	return []spec{
		col("money-usd", "price", m, "en-US", light, func(g *gen) string { return "$" + num(a(g), 2) }),
		col("money-eur", "Betrag", m, "de-DE", light, func(g *gen) string { return de(a(g)) + " €" }),
		col("money-sek", "belopp", m, "sv-SE", typical, func(g *gen) string { return sv(a(g)) + " kr" }),
		col("money-plain", "amount", m, "-", light, func(g *gen) string { return num(a(g), 2) }),
		col("money-codes", "total", m, "-", light, func(g *gen) string { return num(a(g), 2) + " " + g.Pick("EUR", "SEK", "NOK", "USD") }),
		col("money-refund", "refund_amount", m, "-", light, func(g *gen) string { return "-" + num(g.Float(1, 300), 2) }),
		col("money-salary", "salary", m, "-", light, func(g *gen) string { return num(float64(g.Between(28000, 95000)), 2) }),
		col("money-nohint", "col_m", m, "en-GB", light, func(g *gen) string { return "£" + num(g.Float(1, 900), 2) }),
		col("money-postal-fee", "postal_fee", m, "-", light, func(g *gen) string { return num(g.Float(3, 99), 2) }).why("'postal' hints postal codes"),
	}
}

func temporalSpecs() []spec {
	ts := func(layout string, y0, y1 int) func(g *gen) string {
		return func(g *gen) string { return g.Instant(y0, y1).Format(layout) }
	}
	day := func(layout string, y0, y1 int) func(g *gen) string {
		return func(g *gen) string { return g.Date(y0, y1).Format(layout) }
	}
	const dt, d = "datetime", "date"
	return []spec{
		col("dt-iso", "created_at", dt, "-", clean, ts(time.RFC3339, 2019, 2024)),
		col("dt-sql", "updated_at", dt, "-", light, ts("2006-01-02 15:04:05", 2020, 2024)),
		col("dt-ms", "event_time", dt, "-", clean, ts("2006-01-02T15:04:05.000Z", 2023, 2024)),
		col("dt-epoch", "created", dt, "-", clean, func(g *gen) string { return strconv.FormatInt(g.Instant(2017, 2024).Unix(), 10) }).why("Unix seconds"),
		col("dt-epoch-ms", "ts", dt, "-", clean, func(g *gen) string { return strconv.FormatInt(g.Instant(2021, 2024).UnixMilli(), 10) }),
		col("dt-de", "Zeitstempel", dt, "de-DE", light, ts("02.01.2006 15:04", 2022, 2024)),
		col("dt-us", "last_login", dt, "en-US", light, ts("1/2/2006 3:04:05 PM", 2023, 2024)),
		col("dt-birthday-trap", "birthday_reminder_sent_at", dt, "-", light, ts("2006-01-02 15:04:05", 2023, 2024)).why("'birthday' in a timestamp name"),
		col("dt-pw-changed", "password_changed_at", dt, "-", light, ts(time.RFC3339, 2021, 2024)),
		col("dt-nohint", "col_t", dt, "-", clean, ts("2006-01-02T15:04:05", 2024, 2024)),

		col("date-iso", "order_date", d, "-", light, day("2006-01-02", 2018, 2024)),
		col("date-se", "datum", d, "sv-SE", light, day("2006-01-02", 2022, 2024)),
		col("date-us", "ship_date", d, "en-US", light, day("01/02/2006", 2022, 2024)),
		col("date-de", "Lieferdatum", d, "de-DE", typical, day("02.01.2006", 2022, 2025)),
		col("date-text", "invoice_date", d, "en-GB", light, day("2 Jan 2006", 2020, 2024)),
		col("date-due", "due_date", d, "-", clean, day("2006-01-02", 2025, 2026)),
		col("date-hired", "hire_date", d, "-", light, day("2006-01-02", 1985, 2024)).why("dates reaching decades back, like birth dates"),
		col("date-cpr-trap", "cpr_course_date", d, "en-GB", light, day("02/01/2006", 2019, 2024)).why("first-aid course; 'cpr'"),
		col("date-birthday-trap", "birthday_email_sent_on", d, "-", light, day("2006-01-02", 2023, 2024)),
		col("date-nohint", "col_d", d, "-", clean, day("2006-01-02", 2010, 2024)),
		col("date-small", "dag", d, "sv-SE", clean, day("2006-01-02", 2024, 2024)).rows(16),
	}
}

func booleanSpecs() []spec {
	const b = "boolean"
	return []spec{
		col("bool-email-verified", "email_verified", b, "-", clean, fixed("true", "false")),
		col("bool-active", "is_active", b, "-", light, fixed("1", "0")),
		col("bool-has-phone", "has_phone", b, "-", clean, fixed("1", "0")),
		col("bool-optin", "opt_in", b, "-", light, fixed("Y", "N")),
		col("bool-se", "aktiv", b, "sv-SE", light, fixed("ja", "nej")),
		col("bool-newsletter", "newsletter", b, "-", light, fixed("no", "yes")),
		col("bool-consent", "gdpr_consent", b, "-", clean, fixed("TRUE", "FALSE")),
		col("bool-deleted", "deleted", b, "-", clean, fixed("f", "t")),
		col("bool-biometric", "biometric_login_enabled", b, "-", clean, fixed("false", "true")),
		col("bool-iban-verified", "iban_verified", b, "-", clean, fixed("true", "false")),
		col("bool-de", "Newsletter_Abo", b, "de-DE", light, fixed("nein", "ja")),
		col("bool-nohint", "col_b", b, "-", clean, fixed("false", "true")),
	}
}

func textSpecs() []spec {
	const ft = "free_text"
	return []spec{
		col("text-comment", "comment", ft, "en-GB", light, (*gen).sentence),
		col("text-notes-email", "notes", ft, "en-GB", light, func(g *gen) string {
			return "Please contact " + anyCultureEmail(g) + " about the " + g.Pick("invoice", "delivery", "refund", "contract") + " " + g.Pick("today.", "asap", "next week.")
		}).why("mentions e-mail addresses"),
		col("text-notes-phone", "anteckning", ft, "sv-SE", light, func(g *gen) string {
			return g.Pick("Ring kunden på ", "Kunden nås på ", "Nytt nummer: ") + g.phone("SE", 0) + g.Pick(" efter kl 15.", " (jobb).", ", helst förmiddag.")
		}).why("mentions phone numbers"),
		col("text-review", "review", ft, "en-US", light, func(g *gen) string {
			return g.Pick("Great product,", "Terrible experience,", "Okay overall,", "Love it!") + " " + g.sentence()
		}),
		col("text-de", "Bemerkung", ft, "de-DE", light, fixed(deComments...)),
		col("text-fi", "kommentti", ft, "fi-FI", light, fixed(fiComments...)),
		col("text-se", "kommentar", ft, "sv-SE", typical, fixed(svComments...)),
		col("text-description", "description", ft, "en-GB", clean, func(g *gen) string {
			return "The " + strings.ToLower(g.Pick(productAdjectives...)+" "+g.Pick(productWords...)) + " " + g.Pick("is made of recycled materials", "comes with a two-year warranty", "fits in any small flat", "ships flat-packed with tools included") + "."
		}),
		col("text-delivery", "delivery_instructions", ft, "en-GB", light, fixed("Leave at the back door, code 1234", "Ring the bell twice and wait", "Deliver to the reception on floor 3",
			"Do not leave with neighbours please", "Gate code is 4455, parking behind the building", "Call when you are outside the building")).why("instructions, not addresses"),
		col("text-email-body", "email_body", ft, "en-GB", clean, func(g *gen) string {
			return "Hi " + g.given(g.culture()) + ", " + strings.ToLower(g.sentence()) + " Best regards, " + g.Pick("Support", "The team", "Billing")
		}).why("'email' in the name; text mentions first names"),
		col("text-nohint", "col_x", ft, "en-GB", light, (*gen).sentence),
	}
}
