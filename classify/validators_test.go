package classify

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/colgen"
)

func TestLuhnAndCards(t *testing.T) {
	for _, tc := range []struct {
		v          string
		luhn, card bool
	}{
		{"4111111111111111", true, true},         // Visa test PAN
		{"4111 1111 1111 1111", false, true},     // grouped (luhnValid needs digits)
		{"4111-1111-1111-1111", false, true},     // dashes
		{"4111111111111112", false, false},       // bad check digit
		{"5555555555554444", true, true},         // Mastercard
		{"2223003122003222", true, true},         // Mastercard 2-series
		{"378282246310005", true, true},          // American Express, 15 digits
		{"6011111111111117", true, true},         // Discover
		{"3530111333300000", true, true},         // JCB
		{"30569309025904", true, true},           // Diners Club, 14 digits
		{"79927398713", true, false},             // Luhn example, too short for a card
		{"1234567812345670", true, false},        // Luhn-valid, no issuer uses prefix 1
		{"411111111111", false, false},           // 12 digits
		{"4111111111111", false, false},          // 13-digit Visa length but Luhn fails
		{"378282246310005 ", false, false},       // trailing space is not trimmed here
		{"5105105105105100000", false, false},    // Mastercard prefix with 19 digits
		{"4111 1111  1111 1111", false, false},   // double separator
		{"4111111111111111111", false, false},    // 19-digit Visa, Luhn fails
		{"4000 0000 0000 0002", false, true},     // Visa with grouping
		{"9111111111111111", false, false},       // prefix 9
		{"3714 496353 98431", false, true},       // Amex 4-6-5 grouping
		{"5019717010103742", true, false},        // Dankort (5019) not in the IIN table
		{"6304000000000000", true, true},         // Maestro
		{"0000000000000000", true, false},        // zeros pass Luhn, no issuer
		{"2720999999999996", true, true},         // top of Mastercard 2-series
		{"2721000000000000", false, false},       // outside the range
		{"6200000000000005", true, true},         // UnionPay
		{"4242424242424242", true, true},         // Stripe test card
		{"4012888888881881", true, true},         // Visa test
		{"5200828282828210", true, true},         // Mastercard debit test
		{"371449635398431", true, true},          // Amex test
		{"36227206271667", true, true},           // Diners 14
		{"3566002020360505", true, true},         // JCB test
		{"6011000990139424", true, true},         // Discover test
		{"4111111111111111111111", false, false}, // too long
	} {
		if got := luhnValid(tc.v); got != tc.luhn {
			t.Errorf("luhnValid(%q) = %v, want %v", tc.v, got, tc.luhn)
		}
		if got := validCard(tc.v); got != tc.card {
			t.Errorf("validCard(%q) = %v, want %v", tc.v, got, tc.card)
		}
	}
}

func TestIBAN(t *testing.T) {
	valid := []string{
		"GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32", "gb82west12345698765432",
		"DE89370400440532013000", "SE4550000000058398257466", "NO9386011117947", "FI2112345600000785",
		"DK5000400440116243", "FR1420041010050500013M02606", "NL91ABNA0417164300", "IBAN GB82WEST12345698765432",
	}
	invalid := []string{
		"GB82WEST12345698765433", // check digits
		"GB82WEST1234569876543",  // length for GB
		"XX82WEST12345698765432", // unknown country
		"GB8WEST12345698765432",
		"DE89 3704 0044 0532 0130 01",
		"SE45 5000 0000 0583 9825 7467",
		"",
	}
	for _, v := range valid {
		if !validIBAN(v) {
			t.Errorf("validIBAN(%q) = false, want true", v)
		}
	}
	for _, v := range invalid {
		if validIBAN(v) {
			t.Errorf("validIBAN(%q) = true, want false", v)
		}
	}
}

// US SSN. 123-45-6789 and 078-05-1120 are well-known fake/advertising numbers.
// Our choice: they satisfy the SSA structural rules, so they are SSN-shaped
// (valid) and the column detector reports them as known examples in the
// evidence instead of rejecting the column.
func TestSSN(t *testing.T) {
	for _, tc := range []struct {
		v    string
		bare bool
		want bool
	}{
		{"536-90-4399", false, true},
		{"123-45-6789", false, true}, // known fake, SSN-shaped
		{"078-05-1120", false, true}, // Woolworth wallet card, SSN-shaped
		{"536 90 4399", false, true},
		{"000-12-3456", false, false}, // area 000
		{"666-12-3456", false, false}, // area 666
		{"900-12-3456", false, false}, // area 9xx (ITIN range)
		{"999-12-3456", false, false},
		{"123-00-4567", false, false}, // group 00
		{"123-45-0000", false, false}, // serial 0000
		{"536904399", false, false},   // bare needs a name hint
		{"536904399", true, true},
		{"53-690-4399", false, false},
		{"536-90-439", false, false},
	} {
		if got := validSSN(tc.v, tc.bare); got != tc.want {
			t.Errorf("validSSN(%q, %v) = %v, want %v", tc.v, tc.bare, got, tc.want)
		}
	}
	if d, _ := ssnDigits("123-45-6789", false); !knownFakeSSNs[d] {
		t.Error("123-45-6789 should be a known fake")
	}
	r := Column("ssn", append(newGen(1).column(200, 0, newGen(2).ssn), "123-45-6789", "078-05-1120"))
	if r.Label != LabelSSN || !slices.ContainsFunc(r.Evidence, func(e string) bool { return e == "2 values are well-known example SSNs (counted as SSN-shaped)" }) {
		t.Errorf("known fakes not reported: %v", r)
	}
}

func TestSEPersonnummer(t *testing.T) {
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	samordning := colgen.LuhnComplete("121272" + "123") // day 12 + 60
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"19121212-1212", true}, // Tolvan Tolvansson, the Tax Agency's public test number
		{"191212121212", true},
		{"121212-1212", true},
		{"1212121212", true},
		{"121212+1212", true},  // '+' for 100 years or older: born 1912
		{"121212-1213", false}, // check digit
		{"19121312-1212", false},
		{"19120230-1212", false}, // 30 February
		{samordning[:6] + "-" + samordning[6:], true},
		{"20991212-1212", false}, // future
		{"17121212-1212", false}, // century out of range
		{"121212 1212", false},
		{"12121-21212", false},
	} {
		if got := validSEPersonnummer(tc.v, now); got != tc.want {
			t.Errorf("validSEPersonnummer(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestFIHETU(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"131052-308T", true}, // public example from the Digital and Population Data Services Agency
		{"131052-308t", true},
		{"131052-308U", false},
		{"131052X308T", true},  // 2023 century signs: X = 1900s
		{"131052+308T", true},  // 1800s
		{"311352-308T", false}, // month 13
		{"290201A1239", false}, // 29 Feb 2001
		{"131052-001T", false}, // individual number 001 not used
		{"131052/308T", false},
		{"131052-308", false},
	} {
		if got := validFIHETU(tc.v); got != tc.want {
			t.Errorf("validFIHETU(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// noNumber completes the first nine digits of a fødselsnummer.
func noNumber(t *testing.T, d9 string) string {
	t.Helper()
	k1, k2, ok := noControlDigits(d9)
	if !ok {
		t.Fatalf("%s has no valid control digits", d9)
	}
	return fmt.Sprintf("%s%d%d", d9, k1, k2)
}

func TestNOFodselsnummer(t *testing.T) {
	// 1 January 2001, individual number 501: k1 = 11 − (39 mod 11) = 5,
	// k2 = 11 − (50 mod 11) = 5. (01010150144, an often-quoted guess, fails.)
	valid := noNumber(t, "010101501")
	if valid != "01010150155" {
		t.Fatalf("computed %s for 010101501, want 01010150155", valid)
	}
	if validNOFodselsnummer("01010150144") {
		t.Error("01010150144 should fail the control digits")
	}
	if !validNOFodselsnummer(valid) {
		t.Fatalf("computed number %s rejected", valid)
	}
	dnum := noNumber(t, "410190123") // D-number: day 01 + 40
	hnum := noNumber(t, "014190123") // H-number: month 01 + 40
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{valid, true},
		{valid[:6] + " " + valid[6:], true},
		{dnum, true},
		{hnum, true},
		{valid[:10] + string('0'+(valid[10]-'0'+1)%10), false}, // second control digit
		{valid[:9] + string('0'+(valid[9]-'0'+1)%10) + valid[10:], false},
		{"31029012345", false}, // 31 February
		{"0101015014", false},
		{"0101015014a", false},
	} {
		if got := validNOFodselsnummer(tc.v); got != tc.want {
			t.Errorf("validNOFodselsnummer(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestDKCPR(t *testing.T) {
	for _, tc := range []struct {
		v         string
		bare      bool
		ok, mod11 bool
	}{
		{"070761-4285", false, true, true}, // passes the legacy mod-11 check
		{"010190-1234", false, true, false},
		{"0101901234", false, false, false}, // bare needs a name hint
		{"0101901234", true, true, false},
		{"310290-1234", false, false, false}, // 31 February
		{"290200-4123", false, true, false},  // 29 Feb 2000 (7th digit 4 → 2000s)
		{"290201-4123", false, false, false}, // 29 Feb 2001
		{"011390-1234", false, false, false},
	} {
		ok, m11 := dkCPR(tc.v, tc.bare)
		if ok != tc.ok || m11 != tc.mod11 {
			t.Errorf("dkCPR(%q, %v) = %v, %v; want %v, %v", tc.v, tc.bare, ok, m11, tc.ok, tc.mod11)
		}
	}
}

func TestEmailSyntax(t *testing.T) {
	for _, v := range []string{"anna.svensson@example.se", "o'brien+tag@mail.co.uk", "Anna Svensson <anna@example.com>",
		"mailto:x.y@firma.io", "åsa@exempel.se", "user@xn--exmpel-cua.se", "a_b-c@sub.domain.fi"} {
		if _, ok := emailAddress(v); !ok {
			t.Errorf("emailAddress(%q) = false", v)
		}
	}
	for _, v := range []string{"anna@", "@example.com", "anna@example", "anna..b@example.com", "anna@-example.com",
		"contact anna@example.com today", "anna@example.c", "anna@exa mple.com", ".anna@example.com", "anna@example.123"} {
		if _, ok := emailAddress(v); ok {
			t.Errorf("emailAddress(%q) = true", v)
		}
	}
}

func TestPhoneValidation(t *testing.T) {
	for _, v := range []string{"+46 70 123 45 67", "070-123 45 67", "+358 40 1234567", "040 123 4567", "+47 412 34 567",
		"+45 20 12 34 56", "+49 151 23456789", "+44 7911 123456", "(212) 555-0123", "+1 202-555-0143", "+33 6 12 34 56 78",
		"0046701234567"} {
		if !validPhone(v) {
			t.Errorf("validPhone(%q) = false", v)
		}
	}
	for _, v := range []string{"12345", "+46 12", "2023-01-15", "192.168.1.1", "850312-1234", "123-45-6789", "1234.5678", "+99 123 456 789", "phone: 070"} {
		if validPhone(v) {
			t.Errorf("validPhone(%q) = true", v)
		}
	}
}

func TestIPAndPostalAndICD(t *testing.T) {
	for _, v := range []string{"192.168.1.1", "2001:db8::1", "fe80::1%eth0", "10.0.0.1:8080", "[2001:db8::1]:443", "::ffff:10.1.2.3"} {
		if _, ok := parseIP(v); !ok {
			t.Errorf("parseIP(%q) = false", v)
		}
	}
	for _, v := range []string{"256.1.1.1", "1.2.3", "01.02.03.04.05", "abc"} {
		if _, ok := parseIP(v); ok {
			t.Errorf("parseIP(%q) = true", v)
		}
	}
	for _, v := range []string{"114 55", "11455", "SE-114 55", "SW1A 1AA", "EC1A1BB", "M1 1AE", "90210", "90210-1234", "0150", "1012 AB", "K1A 0B1", "00-950", "1000-001"} {
		if !postalShape(v) {
			t.Errorf("postalShape(%q) = false", v)
		}
	}
	for _, v := range []string{"ABCDE", "123", "1234567", "SW1A", "90210-12"} {
		if postalShape(v) {
			t.Errorf("postalShape(%q) = true", v)
		}
	}
	for _, v := range []string{"E11.9", "J45.909", "I10", "F32A", "e11.9", "C50.911"} {
		if !isICD10(v) {
			t.Errorf("isICD10(%q) = false", v)
		}
	}
	for _, v := range []string{"E1", "123", "E11.", "EE1.2", "E11.12345"} {
		if isICD10(v) {
			t.Errorf("isICD10(%q) = true", v)
		}
	}
}

func TestHashesAndSecrets(t *testing.T) {
	for _, v := range []string{
		"$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
		"$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
		"pbkdf2_sha256$600000$abcdefgh$Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4",
		"$6$rounds=5000$saltsalt$Yw3Vb5bMo0wRkC7jMPyIJ7D0U8Y1",
		"{SSHA}K2sYf8k3bA8yXz0Hr0Ydq0Nd9L0=",
	} {
		if !selfIdentifyingHash(v) {
			t.Errorf("selfIdentifyingHash(%q) = false", v)
		}
	}
	for _, v := range []string{"hunter2", "$2b$12$short", "5f4dcc3b5aa765d61d8327deb882cf99"} {
		if selfIdentifyingHash(v) {
			t.Errorf("selfIdentifyingHash(%q) = true", v)
		}
	}
	for _, v := range []string{"AKIAIOSFODNN7EXAMPLE", "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A", "sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
		"xoxb-12345678901-123456789012-AbCdEfGhIjKlMnOpQrStUvWx",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"} {
		if _, ok := secretPrefix(v); !ok {
			t.Errorf("secretPrefix(%q) = false", v)
		}
	}
	for _, v := range []string{"AKIA", "sk_live_aaaaaaaaaaaaaaaaaaaaaa", "ghp_short", "skeleton-key-for-testing-purposes"} {
		if _, ok := secretPrefix(v); ok {
			t.Errorf("secretPrefix(%q) = true", v)
		}
	}
}

func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		s   string
		f   float64
		dec int
		ok  bool
	}{
		{"1234", 1234, 0, true}, {"-12.5", -12.5, 1, true}, {"1 234,56", 1234.56, 2, true},
		{"1,234.56", 1234.56, 2, true}, {"1.234.567", 1234567, 0, true}, {"12,5", 12.5, 1, true},
		{"1,234", 1234, 0, true}, {"1.2.3", 0, 0, false}, {"12a", 0, 0, false}, {"", 0, 0, false},
		{"1.234,5", 1234.5, 1, true}, {"1'234.50", 1234.5, 2, true},
		// Spaces separate thousands only in groups of three: phone numbers are no numbers.
		{"1 234 567", 1234567, 0, true}, {"+91 98765 43210", 0, 0, false}, {"12 34", 0, 0, false},
		{"070 123 45 67", 0, 0, false},
	} {
		f, dec, ok := parseNumber(tc.s)
		if ok != tc.ok || ok && (math.Abs(f-tc.f) > 1e-9 || dec != tc.dec) {
			t.Errorf("parseNumber(%q) = %v, %d, %v; want %v, %d, %v", tc.s, f, dec, ok, tc.f, tc.dec, tc.ok)
		}
	}
}

func TestNameAnalysis(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"emailAddress", []string{"email", "address"}},
		{"IPAddress", []string{"ip", "address"}},
		{"date_of_birth", []string{"date", "of", "birth"}},
		{"customerID", []string{"customer", "id"}},
		{"E-mail", []string{"e", "mail"}},
		{"Födelsedatum", []string{"födelsedatum"}},
	} {
		if got := splitName(tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("splitName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name  string
		label string
		want  bool
	}{
		{"email_verified", LabelEmail, false},
		{"E-mail", LabelEmail, true},
		{"phone_number", LabelPhone, true},
		{"phone_type", LabelPhone, false},
		{"zip", LabelPostalCode, true},
		{"zip", LabelIP, false},
		{"recipient", LabelIP, false},
		{"page", LabelAge, false},
		{"passport_no", LabelPassword, false},
		{"password_hash", LabelPasswordHash, true},
		{"pwd_sha256", LabelPasswordHash, true},
		{"race_time", LabelEthnicity, false},
		{"patient_race", LabelEthnicity, true},
		{"ssh_key_fingerprint", LabelBiometric, false},
		{"fingerprint_template", LabelBiometric, true},
		{"customer_last_name", LabelPersonName, true},
		{"fodselsnummer", LabelDateOfBirth, false},
		{"date_of_birth", LabelDate, false},
		{"api_key", LabelSecret, true},
		// Modifiers follow the data word; a leading one describes the data.
		{"verified_email", LabelEmail, true},
		{"is_email_verified", LabelEmail, false},
		{"known_conditions", LabelHealth, true},
		{"age_group", LabelAge, false},
		// Compounds that contain a modifier word name the data itself.
		{"blood_type", LabelHealth, true},
		{"ethnic_group", LabelEthnicity, true},
		// Identifier words count at the head of the name only.
		{"customer_id", LabelIdentifier, true},
		{"id_11", LabelIdentifier, true},
		{"kundnummer", LabelIdentifier, true},
		{"invoice_age_days", LabelIdentifier, false},
		{"code_postal", LabelIdentifier, false},
		{"code_postal", LabelPostalCode, true},
		// More languages.
		{"geb_datum", LabelDateOfBirth, true},
		{"fackförbund", LabelTradeUnion, true},
		{"sexuelle_Orientierung", LabelOrientation, true},
		{"Vorerkrankungen", LabelHealth, true},
		{"trosuppfattning", LabelReligion, true},
	} {
		if got := analyzeName(tc.name).hints[tc.label]; got != tc.want {
			t.Errorf("analyzeName(%q) hint %s = %v, want %v", tc.name, tc.label, got, tc.want)
		}
	}
	if !analyzeName("name").weakPersonName || analyzeName("product_name").weakPersonName || analyzeName("company_name").hints[LabelPersonName] {
		t.Error("bare 'name' should be a weak person-name hint; product/company names none")
	}
	if !analyzeName("holder").weakPersonName || !analyzeName("patient").weakPersonName || analyzeName("customer_id").weakPersonName {
		t.Error("a person word as the head of the name should be a weak person-name hint")
	}
	if !analyzeName("party_member").membership() || analyzeName("third_party").membership() {
		t.Error("membership words")
	}
	// National ids are identifiers: an identifier name does not conflict.
	if _, conflict, _ := analyzeName("customer_id").relation(LabelSEPnr); conflict {
		t.Error("customer_id should not conflict with a personnummer")
	}
	if _, conflict, _ := analyzeName("customer_id").relation(LabelEmail); !conflict {
		t.Error("customer_id should conflict with e-mail addresses")
	}
}

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		n    int
		want float64
	}{
		{1, 10, 0.722}, {1, 50, 0.929}, {1, 1000, 0.996}, {0.9, 200, 0.852}, {0, 100, 0},
	} {
		if got := wilsonLower(tc.p, tc.n); math.Abs(got-tc.want) > 0.002 {
			t.Errorf("wilsonLower(%v, %d) = %.4f, want %.3f", tc.p, tc.n, got, tc.want)
		}
	}
}

func TestWholeNumber(t *testing.T) {
	for _, tc := range []struct {
		s  string
		n  int64
		ok bool
	}{
		{"34", 34, true}, {"34.0", 34, true}, {"34.00", 34, true}, {"34.5", 0, false}, {"34.000", 0, false}, {".0", 0, false}, {"x", 0, false},
	} {
		if n, ok := wholeNumber(tc.s); ok != tc.ok || n != tc.n {
			t.Errorf("wholeNumber(%q) = %d, %v; want %d, %v", tc.s, n, ok, tc.n, tc.ok)
		}
	}
}

func TestPhoneDecorationsAndShapes(t *testing.T) {
	for in, want := range map[string]string{
		"Tel: 070-123 45 67":      "070-123 45 67",
		"tel 070-123 45 67":       "070-123 45 67",
		"+1 212-555-0123 ext. 45": "+1 212-555-0123",
		"(212) 555-0123 x1234":    "(212) 555-0123",
		"020 7946 0018 #22":       "020 7946 0018",
		"telefon 070":             "telefon 070", // not a label: "tel" must stand alone
		"+46 70 123 45 67":        "+46 70 123 45 67",
	} {
		if got := stripPhoneDecorations(in); got != want {
			t.Errorf("stripPhoneDecorations(%q) = %q, want %q", in, got, want)
		}
	}
	for _, v := range []string{"06.12.34.56.78", "212.555.0123", "Mob: 0701234567", "+44 20 7946 0018 ext 12"} {
		if !validPhone(v) {
			t.Errorf("validPhone(%q) = false", v)
		}
	}
	// A number without the trunk prefix its country writes is not that
	// country's; a lone check digit after a dash is a business id; dots as
	// thousands separators make a number.
	for _, v := range []string{"1234567-8", "0123456-7", "8123456", "1.234.567", "123.456"} {
		if validPhone(v) {
			t.Errorf("validPhone(%q) = true", v)
		}
	}
}

func TestEmailList(t *testing.T) {
	for _, v := range []string{"anna@example.se", "anna@example.se; erik@example.se", "a.b@firma.fi,c.d@firma.fi", "Anna <anna@example.se>"} {
		if !emailList(v) {
			t.Errorf("emailList(%q) = false", v)
		}
	}
	for _, v := range []string{"anna@example.se; n/a", "Please contact anna@example.se, thanks", "anna@example,se", ";"} {
		if emailList(v) {
			t.Errorf("emailList(%q) = true", v)
		}
	}
}

func TestExcelSerialDate(t *testing.T) {
	if d, ok := excelSerialDate("31120"); !ok || d.Format("2006-01-02") != "1985-03-14" {
		t.Errorf("excelSerialDate(31120) = %v, %v; want 1985-03-14", d, ok)
	}
	for _, v := range []string{"1985", "3652", "80001", "31120.5", "abc"} {
		if _, ok := excelSerialDate(v); ok {
			t.Errorf("excelSerialDate(%q) accepted; years and non-integers are no serials", v)
		}
	}
}

func TestCoordinates(t *testing.T) {
	for _, v := range []string{`59°19'46.1"N 18°04'07.3"E`, "59° 19′ 46″ N, 18° 4′ 7″ E", "33°52'S 151°12'E", "40°N 74°W"} {
		if !dmsPair(v) {
			t.Errorf("dmsPair(%q) = false", v)
		}
	}
	for _, v := range []string{"59.3293, 18.0686", `59°19'46"N`, `95°00'00"N 18°00'00"E`, `59°75'00"N 18°00'00"E`, "North 5"} {
		if dmsPair(v) {
			t.Errorf("dmsPair(%q) = true", v)
		}
	}
	if decimalComma("59,3293") != "59.3293" || decimalComma("59.3,29") != "59.3,29" || decimalComma("1,2,3") != "1,2,3" {
		t.Error("decimalComma should turn a single decimal comma, and only that, into a point")
	}
	// Pairs without a location name need four decimals.
	if geoPair("21.437, 45.112", 4) || !geoPair("59.32931, 18.06858", 4) {
		t.Error("geoPair precision gate")
	}
}

func TestStreetForms(t *testing.T) {
	for _, v := range []string{"Am Markt 3", "Unter den Linden 77", "An der Alster 12a", "Op de Berg 4", "Storg. 5", "Sveav. 12"} {
		if !isStreetAddress(v) {
			t.Errorf("isStreetAddress(%q) = false", v)
		}
	}
	for _, v := range []string{"In 2023 we sold 5", "Am 3", "am markt", "Ring the bell twice and wait"} {
		if isStreetAddress(v) {
			t.Errorf("isStreetAddress(%q) = true", v)
		}
	}
}

func TestHealthValues(t *testing.T) {
	for _, v := range []string{"a+", "ab neg", "o rh-", "0+", "b", "ab positive"} {
		if !isBloodType(v) {
			t.Errorf("isBloodType(%q) = false", v)
		}
	}
	for _, v := range []string{"c+", "abo", "a++", ""} {
		if isBloodType(v) {
			t.Errorf("isBloodType(%q) = true", v)
		}
	}
	for _, v := range []string{"120/80", "135 / 85 mmhg", "95/60"} {
		if !isBloodPressure(v) {
			t.Errorf("isBloodPressure(%q) = false", v)
		}
	}
	for _, v := range []string{"80/120", "1/2", "2023/24", "120-80"} {
		if isBloodPressure(v) {
			t.Errorf("isBloodPressure(%q) = true", v)
		}
	}
	for _, v := range []string{"metformin 500 mg", "atorvastatin", "lisinopril 10mg", "levothyroxine 50 mcg", "salbutamol inhaler", "vitamin d 20 µg"} {
		if !isMedication(v) {
			t.Errorf("isMedication(%q) = false", v)
		}
	}
	for _, v := range []string{"none", "500 grams of flour", "statin", "mg"} {
		if isMedication(v) {
			t.Errorf("isMedication(%q) = true", v)
		}
	}
	for _, tc := range []struct {
		v        string
		contains bool
		want     string
	}{
		{"type 2 diabetes", false, "type 2 diabetes"},
		{"diabetes mellitus typ 2", true, "diabetes mellitus"},
		{"asian or asian british - indian", true, "asian british"}, // the longest term
		{"white - british", false, ""},
		{"white - british", true, "white"},
	} {
		vocab := healthVocab
		if strings.HasPrefix(tc.v, "asian") || strings.HasPrefix(tc.v, "white") {
			vocab = ethnicityVocab
		}
		if got := vocabTerm(vocab, tc.v, tc.contains); got != tc.want {
			t.Errorf("vocabTerm(%q, %v) = %q, want %q", tc.v, tc.contains, got, tc.want)
		}
	}
}

func TestBirthDateSpread(t *testing.T) {
	if !birthDateSpread(10, 2, 1) {
		t.Error("too few dates to judge should pass")
	}
	if !birthDateSpread(200, 31, 60) {
		t.Error("real birth dates should pass")
	}
	if birthDateSpread(200, 3, 31) {
		t.Error("YYMMDD batch numbers read as DDMMYY put every day on two or three values")
	}
}
