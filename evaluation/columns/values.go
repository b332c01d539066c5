package columns

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Value generators. Each returns one clean value; dirt is added later.

// ---------------------------------------------------------------------------
// People

func (g *gen) culture(locales ...string) culture {
	if len(locales) == 0 {
		return cultures[g.intn(len(cultures))]
	}
	loc := g.pick(locales...)
	for _, c := range cultures {
		if c.locale == loc {
			return c
		}
	}
	panic("unknown culture " + loc)
}

func (g *gen) given(c culture) string   { return g.zipf(c.given) }
func (g *gen) surname(c culture) string { return g.zipf(c.surname) }

// fullName writes a name the way the culture (and typical data entry) does.
func (g *gen) fullName(c culture) string {
	giv, sur := g.given(c), g.surname(c)
	switch {
	case c.locale == "es-ES" && g.chance(0.6):
		return giv + " " + sur + " " + g.surname(c) // two surnames
	case c.locale == "vi-VN":
		return sur + " " + g.pick("Văn", "Thị", "Minh", "Đức") + " " + giv
	case (c.locale == "zh" || c.locale == "ja-JP") && g.chance(0.4):
		return sur + " " + giv // family name first
	case c.locale == "ar" && g.chance(0.3):
		return giv + " " + g.pick("bin", "ibn") + " " + g.given(c) + " " + sur
	}
	if (c.locale == "en-GB" || c.locale == "en-US") && g.chance(0.15) {
		return g.pick("Mr", "Mrs", "Ms", "Dr", "Mr.", "Dr.") + " " + giv + " " + sur
	}
	switch g.intn(10) {
	case 0:
		return sur + ", " + giv
	case 1:
		if mid := g.given(c); mid != giv {
			return giv + " " + mid + " " + sur
		}
		return giv + " " + sur
	case 2:
		return giv[:1] + ". " + sur
	default:
		return giv + " " + sur
	}
}

func (g *gen) email(c culture) string {
	f, l := asciiFold(g.given(c)), asciiFold(g.surname(c))
	var local string
	switch g.intn(7) {
	case 0:
		local = f + "." + l
	case 1:
		local = f[:1] + l
	case 2:
		local = f + "_" + l + strconv.Itoa(g.between(1, 99))
	case 3:
		local = f + strconv.Itoa(g.between(1950, 2008))
	case 4:
		local = l + "." + f + "+" + g.pick("news", "shop", "work")
	case 5:
		local = f + "-" + l
	default:
		local = f + "." + l[:1]
	}
	return local + "@" + g.pick(emailDomains...)
}

// ---------------------------------------------------------------------------
// Financial

func luhnDigit(s string) string {
	sum := 0
	dbl := true // the check digit will sit to the right
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if dbl {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		dbl = !dbl
	}
	return strconv.Itoa((10 - sum%10) % 10)
}

func luhnComplete(s string) string { return s + luhnDigit(s) }

// card returns a PAN of the given brand, Luhn-valid.
func (g *gen) card(brand string) string {
	switch brand {
	case "visa":
		return luhnComplete("4" + g.digits(14))
	case "mastercard":
		if g.chance(0.3) {
			return luhnComplete(strconv.Itoa(g.between(2221, 2720)) + g.digits(11))
		}
		return luhnComplete(strconv.Itoa(g.between(51, 55)) + g.digits(13))
	case "amex":
		return luhnComplete(g.pick("34", "37") + g.digits(12))
	case "discover":
		return luhnComplete(g.pick("6011", "65"+g.digits(2)) + g.digits(11))
	case "jcb":
		return luhnComplete(strconv.Itoa(g.between(3528, 3589)) + g.digits(11))
	case "maestro":
		return luhnComplete(g.pick("6759", "5018", "6304") + g.digits(11))
	case "diners":
		return luhnComplete("36" + g.digits(11))
	case "unionpay":
		return luhnComplete("62" + g.digits(13))
	}
	panic("unknown brand " + brand)
}

// formatCard writes a PAN bare, in blocks of four with spaces or dashes, or
// (Amex) 4-6-5.
func (g *gen) formatCard(p string, style string) string {
	switch style {
	case "bare":
		return p
	case "dash":
		return every4(p, "-")
	}
	if len(p) == 15 {
		return group(p, " ", 4, 6, 5)
	}
	if len(p) == 14 {
		return group(p, " ", 4, 6, 4)
	}
	return every4(p, " ")
}

func ibanMod97(s string) int {
	r := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			r = (r*10 + int(c-'0')) % 97
		} else {
			r = (r*100 + int(c-'A') + 10) % 97
		}
	}
	return r
}

func ibanFor(cc, bban string) string {
	r := ibanMod97(bban + cc + "00")
	return cc + sprintf("%02d", 98-r) + bban
}

// iban returns an IBAN of country cc with a BBAN of that country's shape.
func (g *gen) iban(cc string) string {
	var b string
	switch cc {
	case "SE":
		b = g.pick("500", "800", "300", "600", "120") + g.digits(17)
	case "DE":
		b = g.digits(18)
	case "GB":
		b = g.pick("NWBK", "BARC", "LOYD", "HBUK", "MIDL") + g.digits(14)
	case "FR":
		b = g.digits(10) + g.chars(11, upperAN) + g.digits(2)
	case "FI":
		b = g.digits(14)
	case "NO":
		b = g.digits(11)
	case "DK":
		b = g.digits(14)
	case "NL":
		b = g.pick("ABNA", "INGB", "RABO", "TRIO") + g.digits(10)
	case "ES":
		b = g.digits(20)
	case "IT":
		b = g.chars(1, upper) + g.digits(10) + g.chars(12, upperAN)
	case "CH":
		b = g.digits(5) + g.chars(12, upperAN)
	case "PL":
		b = g.digits(24)
	case "BE":
		b = g.digits(12)
	case "AT":
		b = g.digits(16)
	case "IE":
		b = g.pick("AIBK", "BOFI") + g.digits(14)
	default:
		panic("unknown IBAN country " + cc)
	}
	return ibanFor(cc, b)
}

// ---------------------------------------------------------------------------
// National identifiers

func (g *gen) ssn() string {
	for {
		a := g.between(1, 899)
		if a != 666 {
			return sprintf("%03d-%02d-%04d", a, g.between(1, 99), g.between(1, 9999))
		}
	}
}

// sePnr returns a personnummer (or, now and then, a samordningsnummer) in the
// given form: "short" YYMMDD-NNNC, "long" YYYYMMDD-NNNC, "digits12"
// YYYYMMDDNNNC or "digits10" YYMMDDNNNC.
func (g *gen) sePnr(form string) string {
	d := g.date(1925, 2015)
	day := d.Day()
	if g.chance(0.05) {
		day += 60
	}
	ten := luhnComplete(sprintf("%02d%02d%02d%s", d.Year()%100, int(d.Month()), day, g.digits(3)))
	cent := strconv.Itoa(d.Year() / 100)
	switch form {
	case "long":
		return cent + ten[:6] + "-" + ten[6:]
	case "digits12":
		return cent + ten
	case "digits10":
		return ten
	}
	sep := "-"
	if refYear-d.Year() >= 100 { // the century sign of the centenarians

		sep = "+"
	}
	return ten[:6] + sep + ten[6:]
}

const hetuCheck = "0123456789ABCDEFHJKLMNPRSTUVWXY"

func (g *gen) fiHetu() string {
	d := g.date(1930, 2020)
	sign := g.pick("-", "-", "-", "-", "Y", "X")
	if d.Year() >= 2000 {
		sign = g.pick("A", "A", "A", "B")
	}
	ind := g.between(2, 899)
	base := sprintf("%02d%02d%02d", d.Day(), int(d.Month()), d.Year()%100)
	n, _ := strconv.Atoi(base + sprintf("%03d", ind))
	return sprintf("%s%s%03d%c", base, sign, ind, hetuCheck[n%31])
}

func noControl(d9 string) (string, bool) {
	w1 := []int{3, 7, 6, 1, 8, 9, 4, 5, 2}
	w2 := []int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}
	s := 0
	for i := range 9 {
		s += int(d9[i]-'0') * w1[i]
	}
	k1 := (11 - s%11) % 11
	if k1 == 10 {
		return "", false
	}
	s = 0
	for i := range 9 {
		s += int(d9[i]-'0') * w2[i]
	}
	s += k1 * w2[9]
	k2 := (11 - s%11) % 11
	if k2 == 10 {
		return "", false
	}
	return d9 + strconv.Itoa(k1) + strconv.Itoa(k2), true
}

func (g *gen) noFnr() string {
	for {
		d := g.date(1935, 2018)
		ind := g.between(0, 499)
		if d.Year() >= 2000 {
			ind = g.between(500, 999)
		}
		day := d.Day()
		if g.chance(0.08) {
			day += 40 // D-nummer
		}
		if v, ok := noControl(sprintf("%02d%02d%02d%03d", day, int(d.Month()), d.Year()%100, ind)); ok {
			return v
		}
	}
}

// dkCPR returns DDMMYY-SSSS with a 7th digit consistent with the century.
// Half the numbers satisfy the legacy mod-11 rule, like a population that
// mixes numbers issued before and after 2007.
func (g *gen) dkCPR() string {
	for {
		d := g.date(1938, 2022)
		var c7 int
		switch {
		case d.Year() >= 2000:
			c7 = g.between(4, 8)
			if c7 == 4 && d.Year()%100 > 36 {
				c7 = 5
			}
		default:
			c7 = g.between(0, 3)
		}
		v := sprintf("%02d%02d%02d%d%s", d.Day(), int(d.Month()), d.Year()%100, c7, g.digits(3))
		if g.chance(0.5) || cprMod11(v) {
			return v[:6] + "-" + v[6:]
		}
	}
}

func cprMod11(d string) bool {
	w := []int{4, 3, 2, 7, 6, 5, 4, 3, 2, 1}
	s := 0
	for i := range 10 {
		s += int(d[i]-'0') * w[i]
	}
	return s%11 == 0
}

// ---------------------------------------------------------------------------
// Network

func (g *gen) ipv4() string {
	switch g.intn(5) {
	case 0:
		return sprintf("192.168.%d.%d", g.intn(256), g.between(1, 254))
	case 1:
		return sprintf("10.%d.%d.%d", g.intn(256), g.intn(256), g.between(1, 254))
	default:
		return sprintf("%d.%d.%d.%d", g.between(1, 223), g.intn(256), g.intn(256), g.between(1, 254))
	}
}

func (g *gen) ipv6() string {
	parts := make([]string, 8)
	for i := range parts {
		parts[i] = strconv.FormatInt(int64(g.intn(65536)), 16)
	}
	parts[0] = g.pick("2001", "2a00", "2a02", "2600", "2c0f", "fe80")
	switch g.intn(3) {
	case 0:
		return strings.Join(parts, ":")
	case 1:
		return strings.Join(parts[:4], ":") + "::" + parts[7]
	default:
		return parts[0] + ":" + parts[1] + "::" + strings.Join(parts[5:], ":")
	}
}

// ---------------------------------------------------------------------------
// Addresses

func (g *gen) houseNumber() string {
	n := strconv.Itoa(int(1 + 120*g.r.Float64()*g.r.Float64()))
	if g.chance(0.12) {
		n += g.pick("A", "B", "C", "a", "b")
	}
	return n
}

// street returns a street line in the country's convention.
func (g *gen) street(cc string) string {
	c := countries[cc]
	s, n := g.pick(c.streets...), g.houseNumber()
	switch cc {
	case "SE":
		if g.chance(0.2) {
			return s + " " + n + ", lgh " + sprintf("%d%02d", g.between(10, 16), g.between(1, 12))
		}
		return s + " " + n
	case "FI":
		if g.chance(0.5) {
			return s + " " + n + " " + g.pick("A", "B", "C", "D") + " " + strconv.Itoa(g.between(1, 40))
		}
		return s + " " + n
	case "DK":
		if g.chance(0.5) {
			return s + " " + n + ", " + g.pick("st.", "1.", "2.", "3.", "4.") + " " + g.pick("tv", "th", "mf")
		}
		return s + " " + n
	case "FR":
		if g.chance(0.15) {
			return n + " bis, " + s
		}
		return n + " " + s
	case "GB":
		if g.chance(0.2) {
			return "Flat " + strconv.Itoa(g.between(1, 30)) + ", " + n + " " + s
		}
		return n + " " + s
	case "US":
		line := strconv.Itoa(g.between(1, 9999)) + " " + s
		if g.chance(0.1) {
			line += " " + g.pick("NW", "NE", "SW", "SE")
		}
		if g.chance(0.25) {
			line += g.pick(" Apt ", ", Apt ", " Suite ", " #") + strconv.Itoa(g.between(1, 450))
		}
		return line
	case "ES":
		if g.chance(0.5) {
			return s + " " + n + ", " + strconv.Itoa(g.between(1, 8)) + "º " + g.pick("A", "B", "C", "D")
		}
		return s + ", " + n
	}
	return s + " " + n // DE, NO, NL, IT
}

// postal returns a postal code of country cc in its usual writing.
func (g *gen) postal(cc string) string {
	switch cc {
	case "SE":
		if g.chance(0.3) {
			return sprintf("%d", g.between(10000, 98499))
		}
		return sprintf("%03d %02d", g.between(100, 984), g.intn(100))
	case "FI":
		return sprintf("%05d", g.between(0, 99)*1000+g.pick2(0, 100, 110, 120, 130, 200, 250, 400, 510, 520, 530, 700, 810, 880))
	case "NO":
		return sprintf("%04d", g.between(1, 9990))
	case "DK":
		return strconv.Itoa(g.between(1000, 9990))
	case "DE":
		return sprintf("%05d", g.between(1067, 99998))
	case "FR":
		return sprintf("%02d%03d", g.between(1, 95), g.intn(100)*10)
	case "GB":
		out := g.pick("SW1A", "EC1A", "W1", "NW1", "M1", "M14", "B33", "LS1", "G2", "EH1", "CF10", "BS8", "BT1", "E14", "SE1", "N7")
		return out + " " + strconv.Itoa(g.between(0, 9)) + g.chars(2, "ABDEFGHJLNPQRSTUWXYZ")
	case "US":
		z := sprintf("%05d", g.between(501, 99950))
		if g.chance(0.2) {
			z += "-" + g.digits(4)
		}
		return z
	case "NL":
		return sprintf("%04d %s", g.between(1000, 9999), g.chars(2, "ABCDEGHJKLMNPRSTVWXZ"))
	case "ES", "IT":
		return sprintf("%05d", g.between(1000, 52999))
	case "CA":
		return g.chars(1, "ABCEGHJKLMNPRSTVXY") + g.digits(1) + g.chars(1, upper) + " " + g.digits(1) + g.chars(1, upper) + g.digits(1)
	case "PL":
		return g.digits(2) + "-" + g.digits(3)
	}
	panic("unknown postal country " + cc)
}

func (g *gen) pick2(xs ...int) int { return xs[g.intn(len(xs))] }

// fullAddress is a one-line address with postal code and city.
func (g *gen) fullAddress(cc string) string {
	c := countries[cc]
	city := g.pick(c.cities...)
	st := g.street(cc)
	switch cc {
	case "GB":
		return st + ", " + city + " " + g.postal(cc)
	case "US":
		return st + ", " + city + ", " + g.pick("TX", "WA", "CO", "MA", "IL", "OR", "AZ", "GA") + " " + g.postal(cc)
	}
	return st + ", " + g.postal(cc) + " " + city
}

// ---------------------------------------------------------------------------
// Dates

// refYear is the corpus's "now": fixed, so that the corpus does not change
// with the calendar.
const refYear = 2025

// birthDate draws a date of birth of an adult or child alive today.
func (g *gen) birthDate() time.Time { return g.date(1928, 2010) }

// ---------------------------------------------------------------------------
// Credentials

var passwordWords = words("summer Winter dragon monkey letmein sunshine Hockey kalle mamma Passw0rd qwerty Stockholm liverpool Sommar2023 fotboll hallo123 Schatz soleil salasana kissa123 iloveyou football princess Welcome")

func (g *gen) password() string {
	switch g.intn(5) {
	case 0:
		return g.chars(g.between(10, 16), alnum+"!#%&*?@$")
	case 1:
		return strings.Join([]string{g.pick("correct", "horse", "blue", "tiger", "coffee", "river"), g.pick("battery", "staple", "moon", "lamp", "cloud")}, g.pick("-", "_", "")) + strconv.Itoa(g.between(1, 99))
	default:
		return g.pick(passwordWords...) + strconv.Itoa(g.between(0, 2025)) + g.pick("", "!", "#", "?", "", "")
	}
}

func (g *gen) bcrypt() string {
	return "$2" + g.pick("a", "b", "y") + "$" + g.pick("10", "11", "12") + "$" + g.chars(53, bcryptAB)
}

func (g *gen) argon2() string {
	return "$argon2id$v=19$m=" + g.pick("65536", "19456", "47104") + ",t=" + g.pick("2", "3") + ",p=" + g.pick("1", "4") + "$" +
		strings.TrimRight(base64.RawStdEncoding.EncodeToString(g.bytes(16)), "=") + "$" + base64.RawStdEncoding.EncodeToString(g.bytes(32))
}

func (g *gen) shaCrypt() string {
	return "$6$rounds=" + g.pick("5000", "656000") + "$" + g.chars(16, bcryptAB) + "$" + g.chars(86, bcryptAB)
}

func (g *gen) djangoHash() string {
	return "pbkdf2_sha256$" + g.pick("260000", "390000", "600000") + "$" + g.chars(22, alnum) + "$" + base64.StdEncoding.EncodeToString(g.bytes(32))
}

func (g *gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.intn(256))
	}
	return b
}

func (g *gen) hexString(n int) string { return hex.EncodeToString(g.bytes(n / 2)) }

func (g *gen) apiKey() string {
	switch g.intn(7) {
	case 0:
		return g.pick("sk_live_", "sk_test_", "rk_live_") + g.chars(24, alnum)
	case 1:
		return "AKIA" + g.chars(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
	case 2:
		return "ghp_" + g.chars(36, alnum)
	case 3:
		return "xoxb-" + g.digits(11) + "-" + g.digits(12) + "-" + g.chars(24, alnum)
	case 4:
		return "glpat-" + g.chars(20, b64url)
	case 5:
		return "AIza" + g.chars(35, b64url)
	default:
		return "sk-" + g.pick("proj-", "") + g.chars(48, alnum)
	}
}

func (g *gen) jwt() string {
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"` + g.pick("HS256", "RS256", "ES256") + `","typ":"JWT"}`))
	payload := base64.RawURLEncoding.EncodeToString([]byte(sprintf(`{"sub":"%d","iat":%d,"exp":%d}`,
		g.between(1000, 999999), 1700000000+g.intn(30000000), 1730000000+g.intn(30000000))))
	return header + "." + payload + "." + base64.RawURLEncoding.EncodeToString(g.bytes(32))
}

// ---------------------------------------------------------------------------
// Other

func (g *gen) uuid() string {
	h := g.hexString(32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + g.pick("8", "9", "a", "b") + h[17:20] + "-" + h[20:]
}

func (g *gen) sentence() string {
	return g.pick(sentenceSubjects...) + " " + g.pick(sentenceVerbs...) + " " + g.pick(sentenceTails...)
}

// vector is an embedding of n floats.
func (g *gen) vector(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = num(g.float(-1, 1), 4)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func ean13(g *gen, prefix string) string {
	s := prefix + g.digits(12-len(prefix))
	sum := 0
	for i := range 12 {
		d := int(s[i] - '0')
		if i%2 == 1 {
			d *= 3
		}
		sum += d
	}
	return s + strconv.Itoa((10-sum%10)%10)
}
