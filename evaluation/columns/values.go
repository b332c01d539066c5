package columns

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/dqs/dqs/internal/colgen"
)

// Value generators. Each returns one clean value; dirt is added later.

// ---------------------------------------------------------------------------
// People

func (g *gen) culture(locales ...string) culture {
	if len(locales) == 0 {
		return cultures[g.IntN(len(cultures))]
	}
	loc := g.Pick(locales...)
	for _, c := range cultures {
		if c.locale == loc {
			return c
		}
	}
	panic("unknown culture " + loc)
}

func (g *gen) given(c culture) string   { return g.Zipf(c.given) }
func (g *gen) surname(c culture) string { return g.Zipf(c.surname) }

// fullName writes a name the way the culture (and typical data entry) does.
func (g *gen) fullName(c culture) string {
	giv, sur := g.given(c), g.surname(c)
	switch {
	case c.locale == "es-ES" && g.Chance(0.6):
		return giv + " " + sur + " " + g.surname(c) // two surnames
	case c.locale == "vi-VN":
		return sur + " " + g.Pick("Văn", "Thị", "Minh", "Đức") + " " + giv
	case (c.locale == "zh" || c.locale == "ja-JP") && g.Chance(0.4):
		return sur + " " + giv // family name first
	case c.locale == "ar" && g.Chance(0.3):
		return giv + " " + g.Pick("bin", "ibn") + " " + g.given(c) + " " + sur
	}
	if (c.locale == "en-GB" || c.locale == "en-US") && g.Chance(0.15) {
		return g.Pick("Mr", "Mrs", "Ms", "Dr", "Mr.", "Dr.") + " " + giv + " " + sur
	}
	switch g.IntN(10) {
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

// emailStyle is the corpus's range of addresses: all seven forms of local
// part, birth years up to 2008, three plus-address tags.
var emailStyle = colgen.EmailStyle{Forms: 7, LastBirthYear: 2008, Tags: []string{"news", "shop", "work"}, Domains: emailDomains}

func (g *gen) email(c culture) string {
	f, l := asciiFold(g.given(c)), asciiFold(g.surname(c))
	return g.Email(f, l, emailStyle)
}

// ---------------------------------------------------------------------------
// Financial

// card returns a PAN of the given brand, Luhn-valid.
func (g *gen) card(brand string) string {
	switch brand {
	case "visa":
		return g.PAN("4", 16)
	case "mastercard":
		if g.Chance(0.3) {
			return g.PAN(strconv.Itoa(g.Between(2221, 2720)), 16)
		}
		return g.PAN(strconv.Itoa(g.Between(51, 55)), 16)
	case "amex":
		return g.PAN(g.Pick("34", "37"), 15)
	case "discover":
		return g.PAN(g.Pick("6011", "65"+g.Digits(2)), 16)
	case "jcb":
		return g.PAN(strconv.Itoa(g.Between(3528, 3589)), 16)
	case "maestro":
		return g.PAN(g.Pick("6759", "5018", "6304"), 16)
	case "diners":
		return g.PAN("36", 14)
	case "unionpay":
		return g.PAN("62", 16)
	}
	panic("unknown brand " + brand)
}

// iban returns an IBAN of country cc with a BBAN of that country's shape.
func (g *gen) iban(cc string) string {
	var b string
	switch cc {
	case "SE":
		b = g.Pick("500", "800", "300", "600", "120") + g.Digits(17)
	case "DE":
		b = g.Digits(18)
	case "GB":
		b = g.Pick("NWBK", "BARC", "LOYD", "HBUK", "MIDL") + g.Digits(14)
	case "FR":
		b = g.Digits(10) + g.Chars(11, colgen.UpperAlnum) + g.Digits(2)
	case "FI":
		b = g.Digits(14)
	case "NO":
		b = g.Digits(11)
	case "DK":
		b = g.Digits(14)
	case "NL":
		b = g.Pick("ABNA", "INGB", "RABO", "TRIO") + g.Digits(10)
	case "ES":
		b = g.Digits(20)
	case "IT":
		b = g.Chars(1, colgen.Upper) + g.Digits(10) + g.Chars(12, colgen.UpperAlnum)
	case "CH":
		b = g.Digits(5) + g.Chars(12, colgen.UpperAlnum)
	case "PL":
		b = g.Digits(24)
	case "BE":
		b = g.Digits(12)
	case "AT":
		b = g.Digits(16)
	case "IE":
		b = g.Pick("AIBK", "BOFI") + g.Digits(14)
	default:
		panic("unknown IBAN country " + cc)
	}
	return colgen.IBAN(cc, b)
}

// ---------------------------------------------------------------------------
// National identifiers

func (g *gen) ssn() string {
	for {
		a := g.Between(1, 899)
		if a != 666 {
			return sprintf("%03d-%02d-%04d", a, g.Between(1, 99), g.Between(1, 9999))
		}
	}
}

// sePnr returns a personnummer (or, now and then, a samordningsnummer) in the
// given form: "short" YYMMDD-NNNC, "long" YYYYMMDD-NNNC, "digits12"
// YYYYMMDDNNNC or "digits10" YYMMDDNNNC.
func (g *gen) sePnr(form string) string {
	d := g.Date(1925, 2015)
	ten := g.SEPnr(d, g.Chance(0.05))
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

func (g *gen) fiHetu() string {
	d := g.Date(1930, 2020)
	sign := g.Pick("-", "-", "-", "-", "Y", "X")
	if d.Year() >= 2000 {
		sign = g.Pick("A", "A", "A", "B")
	}
	return colgen.FIHetu(d, sign, g.Between(2, 899))
}

func (g *gen) noFnr() string {
	return g.NOFnr(func() time.Time { return g.Date(1935, 2018) }, func() bool { return g.Chance(0.08) })
}

// dkCPR returns DDMMYY-SSSS with a 7th digit consistent with the century.
// Half the numbers satisfy the legacy mod-11 rule, like a population that
// mixes numbers issued before and after 2007.
func (g *gen) dkCPR() string {
	for {
		d := g.Date(1938, 2022)
		var c7 int
		switch {
		case d.Year() >= 2000:
			c7 = g.Between(4, 8)
			if c7 == 4 && d.Year()%100 > 36 {
				c7 = 5
			}
		default:
			c7 = g.Between(0, 3)
		}
		v := sprintf("%02d%02d%02d%d%s", d.Day(), int(d.Month()), d.Year()%100, c7, g.Digits(3))
		if g.Chance(0.5) || cprMod11(v) {
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
	switch g.IntN(5) {
	case 0:
		return sprintf("192.168.%d.%d", g.IntN(256), g.Between(1, 254))
	case 1:
		return sprintf("10.%d.%d.%d", g.IntN(256), g.IntN(256), g.Between(1, 254))
	default:
		return g.IPv4()
	}
}

func (g *gen) ipv6() string {
	parts := g.Hextets()
	parts[0] = g.Pick("2001", "2a00", "2a02", "2600", "2c0f", "fe80")
	switch g.IntN(3) {
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
	n := strconv.Itoa(int(1 + 120*g.Float64()*g.Float64()))
	if g.Chance(0.12) {
		n += g.Pick("A", "B", "C", "a", "b")
	}
	return n
}

// street returns a street line in the country's convention.
func (g *gen) street(cc string) string {
	c := countries[cc]
	s, n := g.Pick(c.streets...), g.houseNumber()
	switch cc {
	case "SE":
		if g.Chance(0.2) {
			return s + " " + n + ", lgh " + sprintf("%d%02d", g.Between(10, 16), g.Between(1, 12))
		}
		return s + " " + n
	case "FI":
		if g.Chance(0.5) {
			return s + " " + n + " " + g.Pick("A", "B", "C", "D") + " " + strconv.Itoa(g.Between(1, 40))
		}
		return s + " " + n
	case "DK":
		if g.Chance(0.5) {
			return s + " " + n + ", " + g.Pick("st.", "1.", "2.", "3.", "4.") + " " + g.Pick("tv", "th", "mf")
		}
		return s + " " + n
	case "FR":
		if g.Chance(0.15) {
			return n + " bis, " + s
		}
		return n + " " + s
	case "GB":
		if g.Chance(0.2) {
			return "Flat " + strconv.Itoa(g.Between(1, 30)) + ", " + n + " " + s
		}
		return n + " " + s
	case "US":
		line := strconv.Itoa(g.Between(1, 9999)) + " " + s
		if g.Chance(0.1) {
			line += " " + g.Pick("NW", "NE", "SW", "SE")
		}
		if g.Chance(0.25) {
			line += g.Pick(" Apt ", ", Apt ", " Suite ", " #") + strconv.Itoa(g.Between(1, 450))
		}
		return line
	case "ES":
		if g.Chance(0.5) {
			return s + " " + n + ", " + strconv.Itoa(g.Between(1, 8)) + "º " + g.Pick("A", "B", "C", "D")
		}
		return s + ", " + n
	}
	return s + " " + n // DE, NO, NL, IT
}

// postal returns a postal code of country cc in its usual writing.
func (g *gen) postal(cc string) string {
	switch cc {
	case "SE":
		if g.Chance(0.3) {
			return sprintf("%d", g.Between(10000, 98499))
		}
		return sprintf("%03d %02d", g.Between(100, 984), g.IntN(100))
	case "FI":
		return sprintf("%05d", g.Between(0, 99)*1000+g.PickInt(0, 100, 110, 120, 130, 200, 250, 400, 510, 520, 530, 700, 810, 880))
	case "NO":
		return sprintf("%04d", g.Between(1, 9990))
	case "DK":
		return strconv.Itoa(g.Between(1000, 9990))
	case "DE":
		return sprintf("%05d", g.Between(1067, 99998))
	case "FR":
		return sprintf("%02d%03d", g.Between(1, 95), g.IntN(100)*10)
	case "GB":
		out := g.Pick("SW1A", "EC1A", "W1", "NW1", "M1", "M14", "B33", "LS1", "G2", "EH1", "CF10", "BS8", "BT1", "E14", "SE1", "N7")
		return out + " " + strconv.Itoa(g.Between(0, 9)) + g.Chars(2, "ABDEFGHJLNPQRSTUWXYZ")
	case "US":
		z := sprintf("%05d", g.Between(501, 99950))
		if g.Chance(0.2) {
			z += "-" + g.Digits(4)
		}
		return z
	case "NL":
		return sprintf("%04d %s", g.Between(1000, 9999), g.Chars(2, "ABCDEGHJKLMNPRSTVWXZ"))
	case "ES", "IT":
		return sprintf("%05d", g.Between(1000, 52999))
	case "CA":
		return g.Chars(1, "ABCEGHJKLMNPRSTVXY") + g.Digits(1) + g.Chars(1, colgen.Upper) + " " + g.Digits(1) + g.Chars(1, colgen.Upper) + g.Digits(1)
	case "PL":
		return g.Digits(2) + "-" + g.Digits(3)
	}
	panic("unknown postal country " + cc)
}

// fullAddress is a one-line address with postal code and city.
func (g *gen) fullAddress(cc string) string {
	c := countries[cc]
	city := g.Pick(c.cities...)
	st := g.street(cc)
	switch cc {
	case "GB":
		return st + ", " + city + " " + g.postal(cc)
	case "US":
		return st + ", " + city + ", " + g.Pick("TX", "WA", "CO", "MA", "IL", "OR", "AZ", "GA") + " " + g.postal(cc)
	}
	return st + ", " + g.postal(cc) + " " + city
}

// ---------------------------------------------------------------------------
// Dates

// refYear is the corpus's "now": fixed, so that the corpus does not change
// with the calendar.
const refYear = 2025

// birthDate draws a date of birth of an adult or child alive today.
func (g *gen) birthDate() time.Time { return g.Date(1928, 2010) }

// ---------------------------------------------------------------------------
// Credentials

var passwordWords = words("summer Winter dragon monkey letmein sunshine Hockey kalle mamma Passw0rd qwerty Stockholm liverpool Sommar2023 fotboll hallo123 Schatz soleil salasana kissa123 iloveyou football princess Welcome")

func (g *gen) password() string {
	switch g.IntN(5) {
	case 0:
		return g.Chars(g.Between(10, 16), colgen.Alnum+"!#%&*?@$")
	case 1:
		return strings.Join([]string{g.Pick("correct", "horse", "blue", "tiger", "coffee", "river"), g.Pick("battery", "staple", "moon", "lamp", "cloud")}, g.Pick("-", "_", "")) + strconv.Itoa(g.Between(1, 99))
	default:
		return g.WordPassword(passwordWords, []string{"", "!", "#", "?", "", ""})
	}
}

func (g *gen) bcrypt() string { return g.Bcrypt("10", "11", "12") }

func (g *gen) argon2() string {
	return "$argon2id$v=19$m=" + g.Pick("65536", "19456", "47104") + ",t=" + g.Pick("2", "3") + ",p=" + g.Pick("1", "4") + "$" +
		strings.TrimRight(base64.RawStdEncoding.EncodeToString(g.Bytes(16)), "=") + "$" + base64.RawStdEncoding.EncodeToString(g.Bytes(32))
}

func (g *gen) shaCrypt() string {
	return "$6$rounds=" + g.Pick("5000", "656000") + "$" + g.Chars(16, colgen.BcryptBase64) + "$" + g.Chars(86, colgen.BcryptBase64)
}

func (g *gen) djangoHash() string {
	return "pbkdf2_sha256$" + g.Pick("260000", "390000", "600000") + "$" + g.Chars(22, colgen.Alnum) + "$" + base64.StdEncoding.EncodeToString(g.Bytes(32))
}

func (g *gen) apiKey() string {
	switch g.IntN(7) {
	case 0:
		return g.Pick("sk_live_", "sk_test_", "rk_live_") + g.Chars(24, colgen.Alnum)
	case 1:
		return "AKIA" + g.Chars(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
	case 2:
		return g.GitHubToken()
	case 3:
		return g.SlackBotToken()
	case 4:
		return "glpat-" + g.Chars(20, colgen.Base64URL)
	case 5:
		return "AIza" + g.Chars(35, colgen.Base64URL)
	default:
		return "sk-" + g.Pick("proj-", "") + g.Chars(48, colgen.Alnum)
	}
}

func (g *gen) jwt() string {
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"` + g.Pick("HS256", "RS256", "ES256") + `","typ":"JWT"}`))
	payload := base64.RawURLEncoding.EncodeToString([]byte(sprintf(`{"sub":"%d","iat":%d,"exp":%d}`,
		g.Between(1000, 999999), 1700000000+g.IntN(30000000), 1730000000+g.IntN(30000000))))
	return header + "." + payload + "." + base64.RawURLEncoding.EncodeToString(g.Bytes(32))
}

// ---------------------------------------------------------------------------
// Other

func (g *gen) uuid() string { return g.UUID(g.HexString(32)) }

func (g *gen) sentence() string {
	return g.Pick(sentenceSubjects...) + " " + g.Pick(sentenceVerbs...) + " " + g.Pick(sentenceTails...)
}
