package classify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/colgen"
)

type colCase struct {
	name    string // test name
	column  string // column name
	values  []string
	label   string
	minConf float64 // 0: only the label is checked
}

// positiveCases are realistic columns for every label, ≥ 200 values, several
// locales and formats, with some junk.
func positiveCases() []colCase {
	g := newGen(42)
	const n = 240
	j := 0.05 // junk share
	fmtNum := func(f float64, d int) string { return strconv.FormatFloat(f, 'f', d, 64) }
	return []colCase{
		{"email", "customer_email", g.column(n, j, g.email), LabelEmail, 0.8},
		{"email unnamed", "x", g.column(n, j, g.email), LabelEmail, 0.8},
		{"phone multi-locale", "phone", g.column(n, j, g.phone), LabelPhone, 0.8},
		{"phone unnamed", "contact", g.column(n, j, g.phone), LabelPhone, 0.8},
		{"phone bare US digits", "phone_number", g.column(n, j, func() string {
			return g.Pick("202", "212", "415", "617", "312") + strconv.Itoa(g.Between(2, 9)) + g.Digits(6)
		}), LabelPhone, 0.8},
		{"phone msisdn without plus", "msisdn", g.column(n, j, func() string { return "4670" + g.Digits(7) }), LabelPhone, 0.8},
		{"payment card", "card_number", g.column(n, j, g.pan), LabelPaymentCard, 0.8},
		{"payment card unnamed", "col7", g.column(n, j, g.pan), LabelPaymentCard, 0.8},
		{"iban", "iban", g.column(n, j, g.iban), LabelIBAN, 0.8},
		{"iban unnamed", "account", g.column(n, j, g.iban), LabelIBAN, 0.8},
		{"us ssn", "ssn", g.column(n, j, g.ssn), LabelSSN, 0.8},
		{"se personnummer", "personnummer", g.column(n, j, g.sePnr), LabelSEPnr, 0.8},
		{"se personnummer unnamed", "pid", g.column(n, j, g.sePnr), LabelSEPnr, 0.8},
		{"fi hetu", "hetu", g.column(n, j, g.fiHetu), LabelFIHetu, 0.8},
		{"fi hetu unnamed", "tunnus", g.column(n, j, g.fiHetu), LabelFIHetu, 0.8},
		{"no fodselsnummer", "fodselsnummer", g.column(n, j, g.noFnr), LabelNOFnr, 0.8},
		{"no fodselsnummer unnamed", "ident", g.column(n, j, g.noFnr), LabelNOFnr, 0.8},
		{"dk cpr", "cpr_nr", g.column(n, j, g.dkCPR), LabelDKCPR, 0.8},
		{"dk cpr bare", "cpr", g.column(n, j, func() string { return strings.ReplaceAll(g.dkCPR(), "-", "") }), LabelDKCPR, 0.8},
		{"ip address", "client_ip", g.column(n, j, g.ip), LabelIP, 0.8},
		{"ip address unnamed", "src", g.column(n, j, g.ip), LabelIP, 0.8},
		{"person name full", "full_name", g.column(n, j, g.fullName), LabelPersonName, 0.8},
		{"person name first", "firstName", g.column(n, j, func() string { return g.Pick(tGiven...) }), LabelPersonName, 0.8},
		{"person name surname sv", "efternamn", g.column(n, j, func() string { return g.Pick(tSurname...) }), LabelPersonName, 0.8},
		{"person name plain name", "name", g.column(n, j, g.fullName), LabelPersonName, 0.8},
		{"street address", "address_line1", g.column(n, j, g.street), LabelStreet, 0.8},
		{"street address unnamed", "addr2", g.column(n, j, g.street), LabelStreet, 0.8},
		{"postal code", "postal_code", g.column(n, j, g.postal), LabelPostalCode, 0.8},
		{"postal code zip", "zip", g.column(n, j, func() string { return g.Digits(5) }), LabelPostalCode, 0.8},
		{"date of birth", "date_of_birth", g.column(n, j, g.dob), LabelDateOfBirth, 0.8},
		{"date of birth sv", "födelsedatum", g.column(n, j, g.dob), LabelDateOfBirth, 0.8},
		{"gender words", "gender", g.column(n, j, func() string {
			return g.Pick("Male", "Female", "female", "male", "Kvinna", "Man", "Mann", "Frau", "Nainen", "Mies", "Other", "Non-binary")
		}), LabelGender, 0.8},
		{"gender letters", "sex", g.column(n, j, func() string { return g.Pick("M", "F", "F", "M", "X") }), LabelGender, 0.8},
		{"gender unnamed words", "g", g.column(n, j, func() string { return g.Pick("male", "female", "Male", "Female", "other") }), LabelGender, 0.8},
		{"age", "age", g.column(n, j, func() string { return strconv.Itoa(g.Between(18, 95)) }), LabelAge, 0.8},
		{"age sv", "ålder", g.column(n, j, func() string { return strconv.Itoa(g.Between(0, 104)) }), LabelAge, 0.8},
		{"geolocation pair", "location", g.column(n, j, func() string {
			return fmtNum(55+g.Float64()*14, 6) + ", " + fmtNum(5+g.Float64()*25, 6)
		}), LabelGeo, 0.8},
		{"geolocation pair unnamed", "c9", g.column(n, j, func() string {
			return fmtNum(-40+g.Float64()*100, 5) + "," + fmtNum(-120+g.Float64()*200, 5)
		}), LabelGeo, 0.8},
		{"geolocation point", "geom", g.column(n, j, func() string {
			return "POINT(" + fmtNum(10+g.Float64()*10, 6) + " " + fmtNum(55+g.Float64()*10, 6) + ")"
		}), LabelGeo, 0.8},
		{"latitude", "latitude", g.column(n, j, func() string { return fmtNum(-60+g.Float64()*130, 6) }), LabelGeo, 0.8},
		{"longitude", "lng", g.column(n, j, func() string { return fmtNum(-170+g.Float64()*340, 5) }), LabelGeo, 0.8},
		{"password", "password", g.column(n, j, g.password), LabelPassword, 0.8},
		{"password sv", "lösenord", g.column(n, j, g.password), LabelPassword, 0.8},
		{"password hash bcrypt", "pw", g.column(n, j, g.bcrypt), LabelPasswordHash, 0.8},
		{"password hash argon2 unnamed", "h", g.column(n, j, g.argon2), LabelPasswordHash, 0.8},
		{"password hash sha256", "password_sha256", g.column(n, j, func() string { return g.Chars(64, "0123456789abcdef") }), LabelPasswordHash, 0.8},
		{"secret prefixed", "api_key", g.column(n, j, g.apiKey), LabelSecret, 0.8},
		{"secret prefixed unnamed", "value", g.column(n, j, g.apiKey), LabelSecret, 0.8},
		{"secret token", "access_token", g.column(n, j, func() string { return g.Chars(40, colgen.Alnum) }), LabelSecret, 0.8},
		{"health icd10", "diagnosis_code", g.column(n, j, g.icd10), LabelHealth, 0.8},
		{"health words", "condition", g.column(n, j, func() string {
			return g.Pick("Diabetes", "Asthma", "Hypertension", "Depression", "Migraine", "COPD", "Epilepsy", "None")
		}), LabelHealth, 0.8},
		{"religion", "religion", g.column(n, j, func() string {
			return g.Pick("Christian", "Muslim", "Jewish", "Hindu", "Buddhist", "Atheist", "Lutheran", "Catholic", "None", "Prefer not to say")
		}), LabelReligion, 0.8},
		{"religion sv/fi", "tro", g.column(n, j, func() string {
			return g.Pick("Svenska kyrkan", "Katolik", "Muslim", "Ateist", "Ingen", "Luterilainen", "Ortodoksi")
		}), LabelReligion, 0.8},
		{"ethnicity", "ethnicity", g.column(n, j, func() string {
			return g.Pick("White", "Black or African American", "Asian", "Hispanic or Latino", "Two or more races", "Other", "Prefer not to say")
		}), LabelEthnicity, 0.8},
		{"sexual orientation", "sexual_orientation", g.column(n, j, func() string {
			return g.Pick("Heterosexual", "Gay", "Lesbian", "Bisexual", "Asexual", "Prefer not to say", "Other")
		}), LabelOrientation, 0.8},
		{"political opinion", "party_affiliation", g.column(n, j, func() string {
			return g.Pick("Democrat", "Republican", "Independent", "Green", "Libertarian", "Socialdemokraterna", "Moderaterna", "Kokoomus", "SPD", "CDU")
		}), LabelPolitical, 0.8},
		{"biometric vector", "face_embedding", g.column(n, j, func() string { return g.Vector(16) }), LabelBiometric, 0.8},
		{"biometric template", "fingerprint_template", g.column(n, j, func() string { return g.randomBytesB64(96) }), LabelBiometric, 0.8},
		{"trade union names", "union_membership", g.column(n, j, func() string {
			return g.Pick("Unionen", "IF Metall", "Kommunal", "Vision", "JHL", "ver.di", "IG Metall", "Unite", "UNISON", "None")
		}), LabelTradeUnion, 0.8},
		{"trade union flag", "trade_union_member", g.column(n, j, func() string { return g.Pick("yes", "no", "no") }), LabelTradeUnion, 0.8},

		{"identifier uuid", "session_id", g.column(n, 0, g.uuid), LabelIdentifier, 0.8},
		{"identifier sequential", "customer_id", sequence(100000, n), LabelIdentifier, 0.8},
		{"identifier sku", "sku", g.column(n, 0, func() string { return "SKU-" + g.Chars(4, colgen.UpperAlnum) + "-" + g.Digits(3) }), LabelIdentifier, 0.8},
		{"category", "status", g.column(n, 0, func() string { return g.Pick("active", "pending", "closed", "cancelled") }), LabelCategory, 0.8},
		{"number", "weight_kg", g.column(n, 0, func() string { return fmtNum(g.Float64()*120, g.Between(1, 3)) }), LabelNumber, 0.8},
		{"money symbols", "x", g.column(n, j, func() string {
			return g.Pick("$", "€", "£") + fmtNum(g.Float64()*500, 2)
		}), LabelMoney, 0.8},
		{"money codes", "total", g.column(n, j, func() string { return fmtNum(g.Float64()*9000, 2) + " " + g.Pick("SEK", "EUR", "NOK") }), LabelMoney, 0.8},
		{"money named", "unit_price", g.column(n, 0, func() string { return fmtNum(g.Float64()*300, 2) }), LabelMoney, 0.8},
		{"datetime", "created_at", g.column(n, 0, func() string { return g.date(2019, 2024).Add(37 * 1e9 * 60).Format("2006-01-02T15:04:05Z07:00") }), LabelDatetime, 0.8},
		{"date", "order_date", g.column(n, 0, func() string { return g.date(2015, 2024).Format("2006-01-02") }), LabelDate, 0.8},
		{"boolean", "is_active", g.column(n, 0, func() string { return g.Pick("true", "false") }), LabelBoolean, 0.8},
		{"free text", "comment", g.column(n, 0, g.sentence), LabelFreeText, 0.8},
		// Values wrapped, mixed or encoded the way real exports have them.
		{"phone with labels and extensions", "work_phone", g.column(n, j, func() string {
			switch v := g.phone(); g.IntN(4) {
			case 0:
				return v + g.Pick(" ext. ", " x") + strconv.Itoa(g.Between(10, 999))
			case 1:
				return "Tel: " + v
			default:
				return v
			}
		}), LabelPhone, 0.8},
		{"phone French dotted", "telephone", g.column(n, j, func() string {
			return fmt.Sprintf("06.%s.%s.%s.%s", g.Digits(2), g.Digits(2), g.Digits(2), g.Digits(2))
		}), LabelPhone, 0.8},
		{"phone international without plus", "phone", g.column(n, j, func() string {
			return "46 7" + g.Pick("0", "2", "3", "6") + " " + g.Digits(3) + " " + g.Digits(2) + " " + g.Digits(2)
		}), LabelPhone, 0.8},
		{"email lists", "cc", g.column(n, j, func() string { return g.email() + g.Pick("; ", ",") + g.email() }), LabelEmail, 0.8},
		{"person names in lower case", "full_name", g.column(n, j, func() string { return strings.ToLower(g.fullName()) }), LabelPersonName, 0.8},
		{"street German prepositions", "anschrift", g.column(n, j, func() string {
			return g.Pick("Am Markt", "Unter den Linden", "An der Alster", "Hauptstraße", "Im Winkel") + " " + strconv.Itoa(g.Between(1, 99))
		}), LabelStreet, 0.8},
		{"dob spreadsheet serials", "dob", g.column(n, j, func() string {
			return strconv.Itoa(int(g.date(1935, 2005).Sub(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)).Hours() / 24))
		}), LabelDateOfBirth, 0.8},
		{"dob two-digit years", "geb_datum", g.column(n, j, func() string { return g.date(1935, 2005).Format("02.01.06") }), LabelDateOfBirth, 0.8},
		{"age as floats", "age", g.column(n, j, func() string { return strconv.Itoa(g.Between(18, 90)) + ".0" }), LabelAge, 0.8},
		{"gender ISO 5218 codes", "sex", g.column(n, j, func() string { return g.Pick("1", "2", "1", "2", "9", "0") }), LabelGender, 0.8},
		{"geolocation degrees minutes seconds", "position", g.column(n, j, func() string {
			return fmt.Sprintf("%d°%02d'%04.1f\"N %d°%02d'%04.1f\"E", g.Between(50, 69), g.IntN(60), g.Float64()*60, g.Between(5, 30), g.IntN(60), g.Float64()*60)
		}), LabelGeo, 0.8},
		{"latitude decimal comma", "breddgrad", g.column(n, j, func() string { return strings.Replace(fmtNum(55+g.Float64()*14, 5), ".", ",", 1) }), LabelGeo, 0.8},
		{"health blood type", "blood_type", g.column(n, j, func() string { return g.Pick("A+", "O+", "B+", "AB+", "O-", "A-") }), LabelHealth, 0.8},
		{"health blood pressure", "blood_pressure", g.column(n, j, func() string {
			sys := g.Between(100, 170)
			return fmt.Sprintf("%d/%d", sys, sys-g.Between(30, 60))
		}), LabelHealth, 0.8},
		{"health medication", "medication", g.column(n, j, func() string {
			return g.Pick("Metformin 500 mg", "Atorvastatin 20mg", "Ramipril 5 mg", "Sertraline 50mg", "Paracetamol 1 g", "None")
		}), LabelHealth, 0.8},
		{"ethnic group census answers", "ethnic_group", g.column(n, j, func() string {
			return g.Pick("White - British", "Asian or Asian British - Indian", "Black or Black British - African", "Mixed - White and Asian", "Prefer not to say")
		}), LabelEthnicity, 0.8},
		{"political party membership", "party_member", g.column(n, j, func() string { return g.Pick("yes", "no", "no") }), LabelPolitical, 0.8},

		{"unknown", "misc", g.column(n, 0, func() string {
			return g.Pick("blue", "red", "green", "tall", "fast") + " " + g.Pick("fish", "car", "tree", "box") + g.Digits(3) + " " + g.Pick("#", "~", "^")
		}), LabelUnknown, 0},
	}
}

func TestColumnLabels(t *testing.T) {
	for _, tc := range positiveCases() {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.values) < 200 {
				t.Fatalf("test column has %d values, want ≥ 200", len(tc.values))
			}
			r := Column(tc.column, tc.values)
			if r.Label != tc.label {
				t.Fatalf("Column(%q) label = %s (%.3f, %v), want %s", tc.column, r.Label, r.Confidence, r.Evidence, tc.label)
			}
			if r.Confidence < tc.minConf {
				t.Errorf("Column(%q) confidence = %.3f, want ≥ %.2f; evidence %v", tc.column, r.Confidence, tc.minConf, r.Evidence)
			}
			if want := CategoryOf(tc.label); r.Category != want {
				t.Errorf("category = %s, want %s", r.Category, want)
			}
			if isSensitiveLabel(tc.label) && tc.minConf >= AlertThreshold && !IsPersonal(r) {
				t.Errorf("IsPersonal = false for a clean %s column", tc.label)
			}
			if !isSensitiveLabel(tc.label) && IsPersonal(r) {
				t.Errorf("IsPersonal = true for non-personal %s column", tc.label)
			}
			if len(r.Evidence) == 0 {
				t.Errorf("no evidence")
			}
		})
	}
}

// hardNegatives must not raise personal-data alerts.
func hardNegatives() []colCase {
	g := newGen(7)
	const n = 240
	fmtNum := func(f float64, d int) string { return strconv.FormatFloat(f, 'f', d, 64) }
	luhn16 := func(prefix string) func() string {
		return func() string { return colgen.LuhnComplete(prefix + g.Digits(15-len(prefix))) }
	}
	ean13 := func() string { return g.EAN13(g.Pick("40", "41", "42", "43", "44", "73", "64")) }
	return []colCase{
		{"sequential order numbers", "order_number", sequence(4000012345, n), LabelIdentifier, 0},
		{"sequential 10-digit unnamed", "x", sequence(7012345000, n), "", 0},
		{"sequential 10-digit named phone", "phone", sequence(7012345000, n), "", 0},
		{"random 10-digit order ids", "order_id", g.column(n, 0, func() string { return strconv.Itoa(g.Between(1, 9)) + g.Digits(9) }), "", 0},
		{"zero-padded customer numbers", "customer_number", g.column(n, 0, func() string { return "0" + g.Digits(9) }), "", 0},
		{"formatted ticket sequence", "ticket", func() []string {
			var out []string
			for i := 0; i < n; i++ {
				out = append(out, fmt.Sprintf("400-100-%04d", 2000+i))
			}
			return out
		}(), "", 0},
		{"random 16-digit product codes", "product_code", g.column(n, 0, func() string { return g.Digits(16) }), "", 0},
		{"luhn-valid 8-digit codes", "code", g.column(n, 0, func() string { return colgen.LuhnComplete(g.Digits(7)) }), "", 0},
		{"luhn-valid 16-digit without issuer", "ref", g.column(n, 0, luhn16("9")), "", 0},
		{"ean-13 barcodes", "ean", g.column(n, 0, ean13), "", 0},
		{"free text mentioning emails", "notes", g.column(n, 0, func() string {
			return "Please contact " + g.email() + " about the " + g.Pick("invoice", "delivery", "refund") + " today."
		}), LabelFreeText, 0},
		{"free text in email column", "email", g.column(n, 0, func() string {
			return "Sent reminder to " + g.email() + " on " + g.Pick("Monday", "Friday")
		}), "", 0},
		{"email_verified booleans", "email_verified", g.column(n, 0, func() string { return g.Pick("true", "false") }), LabelBoolean, 0},
		{"email opt-in flags", "email_opt_in", g.column(n, 0, func() string { return g.Pick("Y", "N") }), LabelBoolean, 0},
		{"has_phone flags", "has_phone", g.column(n, 0, func() string { return g.Pick("1", "0") }), LabelBoolean, 0},
		{"phone_type categories", "phone_type", g.column(n, 0, func() string { return g.Pick("mobile", "home", "work") }), LabelCategory, 0},
		{"email named but not email", "email", g.column(n, 0, func() string { return g.Pick("yes", "no", "unknown", "pending") }), "", 0},
		{"code with 5-digit ids", "code", g.column(n, 0, func() string { return strconv.Itoa(g.Between(10000, 99999)) }), "", 0},
		{"code with 9-digit ids", "code", g.column(n, 0, func() string { return strconv.Itoa(g.Between(100000000, 899999999)) }), "", 0},
		{"code with alphanumerics", "code", g.column(n, 0, func() string { return g.Chars(6, colgen.UpperAlnum) }), LabelIdentifier, 0},
		{"code with ssn-like dashes", "code", func() []string {
			var out []string
			for i := 0; i < n; i++ {
				out = append(out, fmt.Sprintf("100-20-%04d", 3000+i))
			}
			return out
		}(), "", 0},
		{"unix timestamps", "created", g.column(n, 0, func() string { return strconv.Itoa(g.Between(1500000000, 1750000000)) }), "", 0},
		{"date-prefixed invoice numbers", "invoice_no", g.column(n, 0, func() string {
			return g.Pick("230115", "230116", "230201", "230302") + "-" + fmt.Sprintf("%04d", g.Between(1, 150))
		}), "", 0},
		{"sha256 file checksums", "file_checksum", g.column(n, 0, func() string { return g.Chars(64, "0123456789abcdef") }), "", 0},
		{"uuid session", "session", g.column(n, 0, g.uuid), LabelIdentifier, 0},
		{"age group codes", "age_group", g.column(n, 0, func() string { return g.Pick("1", "2", "3", "4", "5") }), LabelCategory, 0}, // bands are age (realworld_test.go)
		{"sizes", "size", g.column(n, 0, func() string { return g.Pick("S", "M", "L", "XL", "XS") }), LabelCategory, 0},
		{"quantities 0-120", "quantity", g.column(n, 0, func() string { return strconv.Itoa(g.Between(0, 120)) }), "", 0},
		{"temperatures", "temperature", g.column(n, 0, func() string { return fmtNum(-30+g.Float64()*70, 2) }), LabelNumber, 0},
		{"company names", "name", g.column(n, 0, func() string {
			return g.Pick("Acme", "Nordic", "Blue", "Polar", "Baltic", "Alpine") + " " + g.Pick("Widgets", "Logistics", "Foods", "Systems", "Energy") + " " + g.Pick("AB", "Oy", "AS", "GmbH", "Ltd")
		}), "", 0},
		{"product names", "product_name", g.column(n, 0, func() string {
			return g.Pick("Deluxe", "Classic", "Compact", "Smart") + " " + g.Pick("Chair", "Lamp", "Kettle", "Desk")
		}), "", 0},
		{"city names", "city", g.column(n, 0, func() string {
			return g.Pick("Stockholm", "Helsinki", "Oslo", "København", "Berlin", "Paris", "London")
		}), LabelCategory, 0},
		{"contract parties", "party", g.column(n, 0, func() string { return g.Pick("buyer", "seller", "guarantor") }), LabelCategory, 0},
		{"race times", "race_time", g.column(n, 0, func() string { return fmt.Sprintf("0%d:%02d:%02d", g.Between(1, 4), g.IntN(60), g.IntN(60)) }), "", 0},
		{"product condition", "condition", g.column(n, 0, func() string { return g.Pick("new", "used", "refurbished") }), LabelCategory, 0},
		{"version strings", "version", g.column(n, 0, func() string { return fmt.Sprintf("%d.%d.%d", g.Between(1, 3), g.IntN(20), g.IntN(50)) }), "", 0},
		{"prices", "price", g.column(n, 0, func() string { return fmtNum(g.Float64()*1000, 2) }), LabelMoney, 0},
		{"password changed at", "password_changed_at", g.column(n, 0, func() string {
			return g.date(2020, 2024).Add(time.Duration(g.Between(60, 86000)) * time.Second).Format("2006-01-02 15:04:05")
		}), LabelDatetime, 0},
		{"masked passwords", "password", g.column(n, 0, func() string { return g.Pick("********", "******", "**********") }), "", 0},
		{"masked card numbers", "card_number", g.column(n, 0, func() string { return "**** **** **** " + g.Digits(4) }), "", 0},
		{"birth year only", "birth_year", g.column(n, 0, func() string { return strconv.Itoa(g.Between(1940, 2005)) }), LabelNumber, 0},
		{"tiny email sample", "email", []string{"anna@example.com", "erik@example.se"}, LabelEmail, 0},
		{"repeated test e-mail", "contact", g.column(n, 0, func() string { return "noreply@example.com" }), LabelEmail, 0},
		{"page numbers", "page", g.column(n, 0, func() string { return strconv.Itoa(g.Between(1, 400)) }), "", 0},
		{"years", "year", g.column(n, 0, func() string { return strconv.Itoa(g.Between(1990, 2024)) }), "", 0},
		{"hex colors", "color", g.column(n, 0, func() string { return "#" + g.Chars(6, "0123456789abcdef") }), "", 0},
		{"finnish business ids", "y_tunnus", g.column(n, 0, func() string { return g.Digits(7) + "-" + g.Digits(1) }), "", 0},
		{"batch numbers YYMMDD-NNNN", "batch_no", g.column(n, 0, func() string { return g.date(2022, 2024).Format("060102") + "-" + g.Digits(4) }), "", 0},
		{"test outcomes named pass", "pass", g.column(n, 0, func() string { return g.Pick("PASSED", "FAILED", "PASSED") }), LabelCategory, 0},
		{"pass rates", "pass_rate", g.column(n, 0, func() string { return fmtNum(g.Float64(), 3) }), LabelNumber, 0},
		{"firmware versions", "firmware_version", g.column(n, 0, func() string { return g.Pick("1.0.2.3", "2.1.0.7", "1.0.3.1", "3.0.0.12") }), LabelCategory, 0},
		{"sensor pairs in coordinate range", "temp_humidity", g.column(n, 0, func() string {
			return fmtNum(15+g.Float64()*15, 3) + ", " + fmtNum(20+g.Float64()*60, 3)
		}), "", 0},
		{"third-party sharing flags", "third_party_sharing", g.column(n, 0, func() string { return g.Pick("yes", "no") }), LabelBoolean, 0},
	}
}

func TestHardNegatives(t *testing.T) {
	for _, tc := range hardNegatives() {
		t.Run(tc.name, func(t *testing.T) {
			r := Column(tc.column, tc.values)
			if IsPersonal(r) {
				t.Fatalf("Column(%q) = %s %.3f flagged as personal; evidence %v", tc.column, r.Label, r.Confidence, r.Evidence)
			}
			if tc.label != "" && r.Label != tc.label {
				t.Errorf("Column(%q) label = %s, want %s; evidence %v", tc.column, r.Label, tc.label, r.Evidence)
			}
		})
	}
}

// TestNamesHelpButNeverDecide checks the promise: values decide, names only
// adjust confidence.
func TestNamesHelpButNeverDecide(t *testing.T) {
	g := newGen(3)
	emails := g.column(200, 0.05, g.email)
	named := Column("email", emails)
	unnamed := Column("x", emails)
	if named.Label != LabelEmail || unnamed.Label != LabelEmail {
		t.Fatalf("labels %s / %s, want email for both", named.Label, unnamed.Label)
	}
	if !(named.Confidence > unnamed.Confidence) {
		t.Errorf("name agreement should raise confidence: named %.3f, unnamed %.3f", named.Confidence, unnamed.Confidence)
	}
	phones := Column("email", g.column(200, 0, g.phone))
	if phones.Label != LabelPhone {
		t.Errorf("phones in a column named email: label %s, want phone", phones.Label)
	}
	if p := Column("phone", g.column(200, 0, g.phone)); !(phones.Confidence < p.Confidence) {
		t.Errorf("conflicting name should lower confidence: %.3f vs %.3f", phones.Confidence, p.Confidence)
	}
	for _, name := range []string{"email", "phone", "ssn", "iban", "date_of_birth", "first_name", "religion", "age", "password"} {
		r := Column(name, g.column(200, 0, func() string { return g.Pick("foo", "bar", "baz", "qux") }))
		if IsPersonal(r) {
			t.Errorf("name %q alone made %s %.3f personal", name, r.Label, r.Confidence)
		}
	}
}

// TestJunkTolerance: up to ~15% junk still yields the label; confidence falls
// with the junk share, and the name keeps it above the alert threshold.
func TestJunkTolerance(t *testing.T) {
	g := newGen(11)
	prev := 2.0
	for _, junk := range []float64{0, 0.05, 0.10, 0.15} {
		vals := make([]string, 400)
		for i := range vals {
			if float64(i) < junk*400 {
				vals[i] = "not provided"
			} else {
				vals[i] = g.email()
			}
		}
		r := Column("email", vals)
		if r.Label != LabelEmail {
			t.Fatalf("junk %.0f%%: label %s", junk*100, r.Label)
		}
		if !IsPersonal(r) {
			t.Errorf("junk %.0f%%: confidence %.3f below alert threshold", junk*100, r.Confidence)
		}
		if r.Confidence > prev {
			t.Errorf("confidence should not rise with junk: %.3f after %.3f", r.Confidence, prev)
		}
		prev = r.Confidence
	}
	vals := make([]string, 400)
	for i := range vals {
		if i < 160 {
			vals[i] = "not provided"
		} else {
			vals[i] = g.email()
		}
	}
	if r := Column("contact", vals); r.Label == LabelEmail {
		t.Errorf("40%% junk should not be labelled email: %v", r)
	}
}

func TestNearMissEvidence(t *testing.T) {
	g := newGen(13)
	vals := g.column(300, 0.4, g.email, "see ticket", "ask Bob", "none yet")
	r := Column("contact_info", vals)
	if r.Label == LabelEmail || IsPersonal(r) {
		t.Fatalf("40%% junk labelled %s %.3f", r.Label, r.Confidence)
	}
	if !slices.ContainsFunc(r.Evidence, func(e string) bool { return strings.Contains(e, "short of the 85% needed for e-mail address") }) {
		t.Errorf("evidence should mention the e-mail share: %v", r.Evidence)
	}
}

func TestSampleSizeLowersConfidence(t *testing.T) {
	g := newGen(5)
	all := g.column(1000, 0, g.ssn)
	var last float64
	for _, n := range []int{5, 20, 100, 1000} {
		r := Column("ssn", all[:n])
		if r.Label != LabelSSN {
			t.Fatalf("n=%d: label %s", n, r.Label)
		}
		if r.Confidence < last {
			t.Errorf("n=%d: confidence %.3f lower than with fewer values (%.3f)", n, r.Confidence, last)
		}
		last = r.Confidence
	}
	if r := Column("ssn", all[:5]); IsPersonal(r) {
		t.Errorf("5 values should not reach the alert threshold, got %.3f", r.Confidence)
	}
}

// Null tokens never reach the classifier: the profile counts them as nulls
// (analysis.TestNullTokensAreNulls).
func TestEmpty(t *testing.T) {
	for _, sample := range [][]string{nil, {"", "  ", "\t"}} {
		if r := Column("email", sample); r.Label != LabelUnknown || r.Confidence != 0 || IsPersonal(r) {
			t.Errorf("%q: %+v", sample, r)
		}
	}
}

// TestEvidenceNeverContainsValues: evidence is about values, never quotes
// them. Values shorter than 4 characters are skipped ("M", "42" appear in
// ordinary words and counts).
func TestEvidenceNeverContainsValues(t *testing.T) {
	cases := append(positiveCases(), hardNegatives()...)
	for _, tc := range cases {
		r := Column(tc.column, tc.values)
		seen := map[string]bool{}
		for _, e := range r.Evidence {
			for _, v := range tc.values {
				v = strings.TrimSpace(v)
				if len(v) >= 4 && strings.Contains(strings.ToLower(e), strings.ToLower(v)) && !seen[v] {
					seen[v] = true
					t.Errorf("%s: evidence %q contains sample value %q", tc.name, e, v)
				}
			}
		}
	}
}

func TestIsPersonal(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want bool
	}{
		{Result{Label: LabelEmail, Category: CategoryPersonal, Confidence: 0.8}, true},
		{Result{Label: LabelEmail, Category: CategoryPersonal, Confidence: 0.79}, false},
		{Result{Label: LabelHealth, Category: CategorySpecial, Confidence: 0.95}, true},
		{Result{Label: LabelIdentifier, Category: CategoryNone, Confidence: 1}, false},
	} {
		if got := IsPersonal(tc.r); got != tc.want {
			t.Errorf("IsPersonal(%+v) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	cases := positiveCases()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := i; j < len(cases); j += 8 {
				Column(cases[j].column, cases[j].values)
			}
		}(i)
	}
	wg.Wait()
}

func BenchmarkColumn(b *testing.B) {
	g := newGen(99)
	cols := map[string]struct {
		name string
		vals []string
	}{
		"phone":     {"phone", g.column(1000, 0.05, g.phone)},
		"email":     {"email", g.column(1000, 0.05, g.email)},
		"free_text": {"comment", g.column(1000, 0, g.sentence)},
		"orders":    {"order_id", sequence(4000000000, 1000)},
		"dob":       {"dob", g.column(1000, 0.05, g.dob)},
	}
	for _, k := range []string{"phone", "email", "free_text", "orders", "dob"} {
		c := cols[k]
		b.Run(k, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Column(c.name, c.vals)
			}
		})
	}
}

// Whole amounts under a money name are money; the same integers under
// another name are not.
func TestWholeAmountsUnderAMoneyName(t *testing.T) {
	var sample []string
	for i := range 500 {
		sample = append(sample, strconv.Itoa(60_000+i*79%40_000))
	}
	if r := Column("salary_usd", sample); r.Label != LabelMoney {
		t.Errorf("salary_usd: %+v", r)
	}
	if r := Column("employee_ref", sample); r.Label == LabelMoney {
		t.Errorf("employee_ref: %+v", r)
	}
}
