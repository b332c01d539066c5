package columns

import (
	"strconv"
	"strings"

	"github.com/dqs/dqs/internal/colgen"
)

// hardSpecs are columns that take more than one clean format: several
// formats mixed in one column, values wrapped in extra text, lists in a
// cell, long-tailed free answers — and non-personal columns that look, or
// are named, like personal data.
func hardSpecs() []spec {
	return append(hardPositiveSpecs(), hardNegativeSpecs()...)
}

func hardPositiveSpecs() []spec {
	nordicName := func(g *gen) string { return g.fullName(g.culture("sv-SE", "nb-NO", "da-DK", "fi-FI")) }
	return []spec{
		col("email-list", "cc_recipients", email, "multi", light, func(g *gen) string {
			first := anyCultureEmail(g)
			if g.Chance(0.3) {
				return first + g.Pick("; ", ", ", ";") + anyCultureEmail(g)
			}
			return first
		}).why("some cells hold two addresses"),
		col("phone-ext", "work_phone", phone, "en-US", typical, func(g *gen) string {
			v := g.phone(g.Pick("US", "GB"), 0.3)
			switch g.IntN(6) {
			case 0:
				return v + g.Pick(" ext. ", " x", " ext ", " #") + strconv.Itoa(g.Between(10, 9999))
			case 1:
				return g.Pick("Tel: ", "tel. ", "Mob: ") + v
			}
			return v
		}).why("extensions and labels around the number"),
		col("name-lower", "customer_fullname", "person_name", "multi", noRecase(light), func(g *gen) string {
			v := g.fullName(g.culture())
			if g.Chance(0.45) {
				return strings.ToLower(v)
			}
			return v
		}).why("user-typed, half in lower case"),
		col("name-given-world", "given_name", "person_name", "multi", light, func(g *gen) string {
			return g.given(g.culture("zh", "ja-JP", "hi-IN", "yo-NG", "ar", "vi-VN", "tr-TR"))
		}).why("given names outside Europe"),
		col("street-de-plain", "Anschrift", "street_address", "de-DE", light, func(g *gen) string {
			if g.Chance(0.35) {
				return g.Pick("Am Markt", "Unter den Linden", "An der Alster", "Im Winkel", "Auf dem Berg", "Zum Hafen") + " " + g.houseNumber()
			}
			return g.street("DE")
		}).why("many German streets have no street word"),
		col("postal-gb-messy", "post_code", "postal_code", "en-GB", noRecase(light), func(g *gen) string {
			v := g.postal("GB")
			switch g.IntN(4) {
			case 0:
				return strings.ToLower(v)
			case 1:
				return strings.ReplaceAll(v, " ", "")
			}
			return v
		}).why("lower case and without the space"),
		col("dob-mixed", "birth_date", "date_of_birth", "multi", light, func(g *gen) string {
			return g.birthDate().Format(g.Pick("2006-01-02", "02.01.2006", "02/01/2006", "2006-01-02 00:00:00"))
		}).why("merged systems, several layouts"),
		col("dob-us-short", "DOB", "date_of_birth", "en-US", light, func(g *gen) string {
			return g.Date(1950, 1999).Format(g.Pick("01/02/06", "1/2/06"))
		}).why("two-digit years, US order"),
		col("age-units", "alder", "age", "nb-NO", light, func(g *gen) string {
			a := strconv.Itoa(g.Between(18, 90))
			if g.Chance(0.25) {
				return a + " år"
			}
			return a
		}).why("some ages carry a unit"),
		col("geo-dms", "gps_position", "geolocation", "-", light, func(g *gen) string {
			lat, lon := g.Float(45, 69), g.Float(5, 30)
			return dms(lat, "N", "S") + " " + dms(lon, "E", "W")
		}).why("degrees, minutes, seconds"),
		col("geo-comma", "breddgrad", "geolocation", "sv-SE", light, func(g *gen) string {
			return strings.Replace(num(g.Float(55.3, 68.9), g.Between(4, 6)), ".", ",", 1)
		}).why("decimal comma"),
		col("card-partly-masked", "card_no", "payment_card", "multi", light, func(g *gen) string {
			p := g.card(g.Pick("visa", "mastercard", "amex"))
			if g.Chance(0.12) {
				return "**** **** **** " + p[len(p)-4:]
			}
			return colgen.FormatPAN(p, "space")
		}).why("a few rows already masked"),
		col("iban-prefixed", "bankverbindung", "iban", "de-DE", light, func(g *gen) string {
			v := colgen.Every4(g.iban(g.Pick("DE", "AT", "CH")), " ")
			if g.Chance(0.3) {
				return "IBAN " + v
			}
			return v
		}),
		col("ssn-spaces", "ss_number", "national_id_us_ssn", "en-US", light, func(g *gen) string {
			v := g.ssn()
			if g.Chance(0.3) {
				return strings.ReplaceAll(v, "-", " ")
			}
			return v
		}),
		col("secret-pem", "private_key", "secret", "-", clean, func(g *gen) string {
			return "-----BEGIN " + g.Pick("RSA ", "EC ", "") + "PRIVATE KEY-----\n" + g.Chars(64, colgen.Alnum+"+/") + "\n" + g.Chars(64, colgen.Alnum+"+/") + "\n-----END PRIVATE KEY-----"
		}).rows(20),
		col("health-freetext", "known_conditions", "health", "en-GB", light, fixed("None known", "Asthma", "High cholesterol", "Type 2 diabetes", "bad back", "IBS",
			"Hypertension", "Anxiety and depression", "Sciatica", "Coeliac disease", "Hay fever", "Heart murmur", "Underactive thyroid")).why("free-typed, long tail"),
		col("religion-freetext", "religious_affiliation", "religion", "en-GB", light, fixed("Church of England", "No religion", "Roman Catholic", "C of E", "Muslim",
			"Methodist", "Spiritual but not religious", "Greek Orthodox", "Jewish", "Hindu", "Quaker", "Humanist")).why("free-typed, long tail"),
		col("political-lean", "political_leaning", "political_opinion", "en-US", light, fixed("Lean Democrat", "Strong Republican", "Independent", "Lean Republican",
			"Strong Democrat", "Independent - leans left", "Moderate", "Not sure")),
		col("union-yesname", "union_membership", "trade_union", "en-GB", light, fixed("No", "Yes - Unite", "Yes - UNISON", "Yes - GMB", "Not sure", "Yes")),
		col("name-nordic-upper-small", "KUND", "person_name", "sv-SE", clean, func(g *gen) string { return strings.ToUpper(nordicName(g)) }).rows(25).why("Swedish for customer, all capitals"),
	}
}

// dms writes a coordinate as degrees, minutes and seconds.
func dms(x float64, pos, neg string) string {
	hemi := pos
	if x < 0 {
		x, hemi = -x, neg
	}
	d := int(x)
	m := int((x - float64(d)) * 60)
	s := (x - float64(d) - float64(m)/60) * 3600
	return strconv.Itoa(d) + "°" + sprintf("%02d", m) + "'" + num(s, 1) + "\"" + hemi
}

func hardNegativeSpecs() []spec {
	var surnames []string
	for _, c := range cultures[:6] {
		surnames = append(surnames, c.surname...)
	}
	return []spec{
		col("cat-supplier", "supplier", "category", "multi", light, func(g *gen) string {
			s := g.Zipf(surnames)
			return g.Pick(s+" Bygg AB", s+" & Söner AB", s+" Transport AB", s+" GmbH", s+" Consulting", s+" Oy", s+" ApS", s+" & Co")
		}).why("firms named after their founders"),
		col("cat-job-title", "job_title", "category", "en-GB", light, fixed("Software Engineer", "Sales Manager", "Customer Service Representative", "Nurse",
			"Project Manager", "Accountant", "Warehouse Operative", "HR Business Partner", "Data Analyst", "Chief Executive Officer")),
		col("cat-firmware", "firmware_version", "category", "-", clean, fixed("1.0.2.3", "1.0.2.4", "2.1.0.7", "2.1.1.0", "3.0.0.12", "1.0.3.1", "2.2.0.5")).
			why("four-part versions that parse as IPv4"),
		col("cat-bic", "bic", "category", "-", light, fixed("NDEASESS", "ESSESESS", "HANDSESS", "SWEDSESS", "DEUTDEFF", "COBADEFF", "OKOYFIHH", "DABADKKK")),
		col("cat-sort-code", "sort_code", "category", "en-GB", clean, fixed("20-00-00", "40-47-84", "30-90-89", "60-16-13", "09-01-28", "11-00-01")),
		col("cat-phone-model", "phone_model", "category", "-", light, fixed("iPhone 13", "iPhone 15 Pro", "Galaxy S22", "Pixel 8", "iPhone SE", "Galaxy A54", "Xperia 10")),
		col("cat-email-template", "email_template", "category", "-", clean, fixed("welcome_v2", "password_reset", "order_confirmation", "newsletter_march", "cart_reminder")),
		col("cat-subnet", "subnet", "category", "-", clean, fixed("10.0.0.0/24", "10.0.1.0/24", "192.168.0.0/16", "172.16.0.0/12", "10.20.0.0/20")),
		col("id-content-hash", "content_hash", "identifier", "-", clean, func(g *gen) string { return g.HexString(64) }),
		col("id-request", "request_id", "identifier", "-", clean, func(g *gen) string { return g.Chars(32, colgen.Alnum) }).why("random tokens, like secrets"),
		col("id-zipfile", "zip_file", "identifier", "-", clean, func(g *gen) string {
			return "export_" + g.Date(2022, 2024).Format("20060102") + "_" + g.Digits(4) + ".zip"
		}).why("'zip' hints postal codes"),
		col("date-founded", "founded", "date", "-", light, func(g *gen) string { return g.Date(1870, 2015).Format("2006-01-02") }).
			why("company founding dates, spread like birth dates"),
		col("num-employees", "employee_count", "number", "-", light, func(g *gen) string { return strconv.Itoa(int(5 + 5000*g.Float64()*g.Float64())) }),
		col("cat-nationality-code", "citizenship", "category", "-", light, fixed("SE", "FI", "NO", "DK", "DE", "PL", "IQ", "SY")),
	}
}
