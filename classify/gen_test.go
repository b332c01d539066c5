package classify

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Generators of realistic test columns. All are deterministic for a seed.

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, seed*7+1))} }

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *gen) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }
func (g *gen) chars(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperAN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b64     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	bcryptA = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// column builds n values with f, then replaces a junk share of them with junk.
func (g *gen) column(n int, junk float64, f func() string, junkVals ...string) []string {
	if len(junkVals) == 0 {
		junkVals = []string{"unknown", "test", "?", "xxx", "asdf", "see notes", "TBD", "0"}
	}
	out := make([]string, n)
	for i := range out {
		if g.r.Float64() < junk {
			out[i] = g.pick(junkVals...)
		} else {
			out[i] = f()
		}
	}
	return out
}

var (
	tGiven = []string{"Anna", "Erik", "Lars", "Maria", "Johan", "Sofia", "Mikko", "Aino", "Ole", "Ingrid",
		"Søren", "Mette", "Hans", "Ursula", "Pierre", "Céline", "James", "Emily", "José", "Giulia",
		"Fatima", "Mohammed", "Wei", "Yuki", "Priya", "Björn", "Åsa", "Jürgen", "Zoë", "Siobhán", "Tuomas",
		"Kerstin", "Astrid", "Liam", "Olivia", "Noah", "Matteo", "Zlatan", "Aurélie", "Kaarina"}
	tSurname = []string{"Andersson", "Johansson", "Virtanen", "Korhonen", "Hansen", "Nielsen", "Müller",
		"Schmidt", "Dubois", "Martin", "Smith", "Johnson", "García", "Rossi", "Khan", "Wang", "Tanaka",
		"Patel", "Lindström", "Mäkinen", "Jørgensen", "Öberg", "O'Brien", "Lefèvre", "Ibrahimović",
		"Nyström", "Kowalski", "Yilmaz", "Svensson", "Lemaître", "Ahonen", "Berglund", "Eriksen", "Fischer"}
	tDomains = []string{"gmail.com", "outlook.com", "hotmail.se", "telia.com", "yahoo.fi", "web.de",
		"gmx.net", "orange.fr", "firma.no", "example.co.uk", "company.dk", "uni-helsinki.fi", "icloud.com"}
)

func asciiFold(s string) string {
	r := strings.NewReplacer("å", "a", "ä", "a", "ö", "o", "ø", "o", "æ", "ae", "ü", "u", "é", "e", "è", "e",
		"í", "i", "á", "a", "ó", "o", "ç", "c", "ć", "c", "ë", "e", "'", "", "Å", "A", "Ä", "A", "Ö", "O", "Ø", "O",
		"Ü", "U", "Z", "z")
	return r.Replace(s)
}

func (g *gen) email() string {
	f := strings.ToLower(asciiFold(g.pick(tGiven...)))
	l := strings.ToLower(asciiFold(g.pick(tSurname...)))
	var local string
	switch g.r.IntN(5) {
	case 0:
		local = f + "." + l
	case 1:
		local = f[:1] + l
	case 2:
		local = f + "_" + l + strconv.Itoa(g.between(1, 99))
	case 3:
		local = f + strconv.Itoa(g.between(1950, 2005))
	default:
		local = l + "." + f + "+news"
	}
	e := local + "@" + g.pick(tDomains...)
	if g.r.IntN(10) == 0 {
		e = strings.ToUpper(e[:1]) + e[1:]
	}
	return e
}

func (g *gen) phone() string {
	for {
		var v string
		switch g.r.IntN(14) {
		case 0:
			v = fmt.Sprintf("+46 7%s %s %s %s", g.pick("0", "2", "3", "6", "9"), g.digits(3), g.digits(2), g.digits(2))
		case 1:
			v = fmt.Sprintf("07%s-%s %s %s", g.pick("0", "2", "3", "6"), g.digits(3), g.digits(2), g.digits(2))
		case 2:
			v = fmt.Sprintf("+358 4%s %s %s", g.pick("0", "1", "4", "5"), g.digits(3), g.digits(4))
		case 3:
			v = fmt.Sprintf("050-%s", g.digits(7))
		case 4:
			v = fmt.Sprintf("+47 %s%s %s %s", g.pick("4", "9"), g.digits(2), g.digits(2), g.digits(3))
		case 5:
			v = fmt.Sprintf("+45 %s%s %s %s %s", g.pick("2", "3", "4", "5", "6"), g.digits(1), g.digits(2), g.digits(2), g.digits(2))
		case 6:
			v = fmt.Sprintf("+49 15%s %s", g.pick("1", "2", "7", "9"), g.digits(8))
		case 7:
			v = fmt.Sprintf("030 %s", g.digits(8))
		case 8:
			v = fmt.Sprintf("+44 7%s %s", g.pick("4", "5", "7", "8", "9")+g.digits(2), g.digits(6))
		case 9:
			v = fmt.Sprintf("07%s %s", g.pick("4", "5", "7", "8", "9")+g.digits(3), g.digits(6))
		case 10:
			v = fmt.Sprintf("(%s) %d%s-%s", g.pick("202", "212", "415", "617", "312", "305"), g.between(2, 9), g.digits(2), g.digits(4))
		case 11:
			v = fmt.Sprintf("+1 %s-%d%s-%s", g.pick("202", "646", "206", "512"), g.between(2, 9), g.digits(2), g.digits(4))
		case 12:
			v = fmt.Sprintf("+33 6 %s %s %s %s", g.digits(2), g.digits(2), g.digits(2), g.digits(2))
		default:
			v = fmt.Sprintf("06 %s %s %s %s", g.digits(2), g.digits(2), g.digits(2), g.digits(2))
		}
		if validPhone(v) {
			return v
		}
	}
}

// luhnComplete appends the Luhn check digit to a digit string.
func luhnComplete(s string) string {
	for c := '0'; c <= '9'; c++ {
		if luhnValid(s + string(c)) {
			return s + string(c)
		}
	}
	panic("unreachable")
}

func (g *gen) pan() string {
	var p string
	switch g.r.IntN(6) {
	case 0, 1:
		p = luhnComplete("4" + g.digits(14))
	case 2:
		p = luhnComplete(strconv.Itoa(g.between(51, 55)) + g.digits(13))
	case 3:
		p = luhnComplete(strconv.Itoa(g.between(2221, 2720)) + g.digits(11))
	case 4:
		p = luhnComplete(g.pick("34", "37") + g.digits(12))
	default:
		p = luhnComplete("6011" + g.digits(11))
	}
	switch g.r.IntN(3) {
	case 0:
		return p
	case 1:
		if len(p) == 15 {
			return p[:4] + " " + p[4:10] + " " + p[10:]
		}
		return p[:4] + " " + p[4:8] + " " + p[8:12] + " " + p[12:]
	default:
		return strings.Join([]string{p[:4], p[4:8], p[8:12], p[12:]}, "-")
	}
}

// ibanFor computes check digits for a BBAN.
func ibanFor(cc, bban string) string {
	r := ibanMod97(bban + cc + "00")
	return fmt.Sprintf("%s%02d%s", cc, 98-r, bban)
}

func (g *gen) iban() string {
	var s string
	switch g.r.IntN(8) {
	case 0:
		s = ibanFor("SE", g.digits(20))
	case 1:
		s = ibanFor("DE", g.digits(18))
	case 2:
		s = ibanFor("GB", g.chars(4, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")+g.digits(14))
	case 3:
		s = ibanFor("FI", g.digits(14))
	case 4:
		s = ibanFor("NO", g.digits(11))
	case 5:
		s = ibanFor("DK", g.digits(14))
	case 6:
		s = ibanFor("FR", g.digits(23))
	default:
		s = ibanFor("NL", g.chars(4, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")+g.digits(10))
	}
	if g.r.IntN(2) == 0 {
		var parts []string
		for i := 0; i < len(s); i += 4 {
			parts = append(parts, s[i:min(i+4, len(s))])
		}
		return strings.Join(parts, " ")
	}
	return s
}

func (g *gen) ssn() string {
	a := g.between(1, 899)
	if a == 666 {
		a = 667
	}
	return fmt.Sprintf("%03d-%02d-%04d", a, g.between(1, 99), g.between(1, 9999))
}

func (g *gen) date(y0, y1 int) time.Time {
	t0 := time.Date(y0, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := time.Date(y1, 12, 31, 0, 0, 0, 0, time.UTC)
	return t0.AddDate(0, 0, g.r.IntN(int(t1.Sub(t0).Hours()/24)))
}

func (g *gen) sePnr() string {
	d := g.date(1915, 2012)
	day := d.Day()
	if g.r.IntN(15) == 0 {
		day += 60 // samordningsnummer
	}
	ten := luhnComplete(fmt.Sprintf("%02d%02d%02d%s", d.Year()%100, int(d.Month()), day, g.digits(3)))
	switch {
	case d.Year() < 1926:
		return ten[:6] + "+" + ten[6:]
	}
	switch g.r.IntN(3) {
	case 0:
		return ten[:6] + "-" + ten[6:]
	case 1:
		return fmt.Sprintf("%d", d.Year()/100) + ten
	default:
		return fmt.Sprintf("%d", d.Year()/100) + ten[:6] + "-" + ten[6:]
	}
}

func (g *gen) fiHetu() string {
	d := g.date(1930, 2015)
	sign := "-"
	if d.Year() >= 2000 {
		sign = g.pick("A", "B")
	} else if g.r.IntN(5) == 0 {
		sign = "Y"
	}
	ind := g.between(2, 899)
	base := fmt.Sprintf("%02d%02d%02d", d.Day(), int(d.Month()), d.Year()%100)
	n, _ := strconv.Atoi(base + fmt.Sprintf("%03d", ind))
	return fmt.Sprintf("%s%s%03d%c", base, sign, ind, hetuCheckChars[n%31])
}

func (g *gen) noFnr() string {
	for {
		d := g.date(1940, 2015)
		ind := g.between(0, 499)
		if d.Year() >= 2000 {
			ind = g.between(500, 999)
		}
		day := d.Day()
		if g.r.IntN(10) == 0 {
			day += 40 // D-number
		}
		d9 := fmt.Sprintf("%02d%02d%02d%03d", day, int(d.Month()), d.Year()%100, ind)
		k1, k2, ok := noControlDigits(d9)
		if ok {
			return fmt.Sprintf("%s%d%d", d9, k1, k2)
		}
	}
}

func (g *gen) dkCPR() string {
	d := g.date(1940, 2020)
	c7 := g.between(0, 3)
	if d.Year() >= 2000 {
		c7 = 4
	}
	return fmt.Sprintf("%02d%02d%02d-%d%s", d.Day(), int(d.Month()), d.Year()%100, c7, g.digits(3))
}

func (g *gen) ip() string {
	if g.r.IntN(4) == 0 {
		var parts []string
		for i := 0; i < 8; i++ {
			parts = append(parts, fmt.Sprintf("%x", g.r.IntN(65536)))
		}
		parts[0] = "2001"
		return strings.Join(parts, ":")
	}
	return fmt.Sprintf("%d.%d.%d.%d", g.between(1, 223), g.r.IntN(256), g.r.IntN(256), g.between(1, 254))
}

func (g *gen) fullName() string {
	switch g.r.IntN(6) {
	case 0:
		return g.pick(tSurname...) + ", " + g.pick(tGiven...)
	case 1:
		return g.pick(tGiven...) + " " + g.pick(tGiven...) + " " + g.pick(tSurname...)
	case 2:
		return g.pick(tGiven...) + "-" + g.pick("Karin", "Marie", "Luc", "Pekka") + " " + g.pick(tSurname...)
	case 3:
		return g.pick("Ludwig van", "Ursula von der", "Jan de", "Anna af") + " " + g.pick("Berg", "Leyen", "Vries", "Klercker")
	default:
		return g.pick(tGiven...) + " " + g.pick(tSurname...)
	}
}

func (g *gen) street() string {
	switch g.r.IntN(8) {
	case 0:
		return fmt.Sprintf("%s %d", g.pick("Storgatan", "Drottninggatan", "Kungsgatan", "Sveavägen", "Odengatan"), g.between(1, 140))
	case 1:
		return fmt.Sprintf("%s %d %s", g.pick("Mannerheimintie", "Hämeentie", "Aleksanterinkatu"), g.between(1, 90), g.pick("A 3", "B 12", "C"))
	case 2:
		return fmt.Sprintf("%s %d", g.pick("Karl Johans gate", "Bogstadveien", "Thorvald Meyers gate"), g.between(1, 80))
	case 3:
		return fmt.Sprintf("%s %d, %d. th.", g.pick("Nørregade", "Vesterbrogade", "Amagerbrogade"), g.between(1, 200), g.between(1, 5))
	case 4:
		return fmt.Sprintf("%s %d", g.pick("Hauptstraße", "Berliner Strasse", "Goethestr.", "Lindenallee"), g.between(1, 120))
	case 5:
		return fmt.Sprintf("%d %s", g.between(1, 200), g.pick("rue de la Paix", "avenue des Champs-Élysées", "boulevard Haussmann"))
	case 6:
		return fmt.Sprintf("%d %s %s", g.between(1, 9999), g.pick("Main", "Oak", "Maple", "Park", "Elm"), g.pick("Street", "St", "Ave", "Road", "Blvd", "Lane"))
	default:
		return fmt.Sprintf("%d%s Baker Street", g.between(1, 250), g.pick("", "B", "A"))
	}
}

func (g *gen) postal() string {
	switch g.r.IntN(7) {
	case 0:
		return fmt.Sprintf("%03d %02d", g.between(100, 984), g.r.IntN(100))
	case 1:
		return g.digits(5)
	case 2:
		return fmt.Sprintf("%04d", g.between(1, 9990))
	case 3:
		return fmt.Sprintf("%s%d %d%s", g.pick("SW", "EC", "N", "M", "B"), g.between(1, 20), g.between(1, 9), g.chars(2, "ABDEFGHJLNPQRSTUWXYZ"))
	case 4:
		return g.digits(5) + "-" + g.digits(4)
	case 5:
		return "SE-" + fmt.Sprintf("%03d %02d", g.between(100, 984), g.r.IntN(100))
	default:
		return fmt.Sprintf("%04d %s", g.between(1000, 9999), g.chars(2, "ABCDEFGHJKLMNPRSTVWXZ"))
	}
}

func (g *gen) dob() string {
	d := g.date(1932, 2006)
	switch g.r.IntN(4) {
	case 0:
		return d.Format("02.01.2006")
	case 1:
		return d.Format("02/01/2006")
	case 2:
		return d.Format("2006-01-02 00:00:00")
	default:
		return d.Format("2006-01-02")
	}
}

func (g *gen) password() string {
	words := []string{"summer", "Winter", "dragon", "monkey", "letmein", "sunshine", "Hockey", "kalle", "mamma", "Passw0rd", "qwerty", "abc", "Stockholm", "liverpool"}
	return g.pick(words...) + strconv.Itoa(g.between(0, 2025)) + g.pick("", "!", "#", "?", "")
}

func (g *gen) bcrypt() string {
	return "$2" + g.pick("a", "b", "y") + "$" + g.pick("10", "12") + "$" + g.chars(53, bcryptA)
}

func (g *gen) argon2() string {
	return "$argon2id$v=19$m=65536,t=3,p=4$" + g.chars(22, alnum) + "$" + g.chars(43, alnum)
}

func (g *gen) apiKey() string {
	switch g.r.IntN(4) {
	case 0:
		return "sk_live_" + g.chars(24, alnum)
	case 1:
		return "AKIA" + g.chars(16, upperAN)
	case 2:
		return "ghp_" + g.chars(36, alnum)
	default:
		return "xoxb-" + g.digits(11) + "-" + g.digits(12) + "-" + g.chars(24, alnum)
	}
}

func (g *gen) icd10() string {
	return g.pick("E11.9", "I10", "J45.909", "F32.1", "M54.5", "K21.0", "E78.5", "F41.1", "J06.9", "N39.0",
		"G43.909", "E66.9", "I25.10", "C50.911", "Z00.00", "R51", "L40.0", "F90.0", "E03.9", "M17.11")
}

func (g *gen) vector(n int) string {
	var parts []string
	for i := 0; i < n; i++ {
		parts = append(parts, strconv.FormatFloat(g.r.Float64()*2-1, 'f', 4, 64))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (g *gen) randomBytesB64(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func (g *gen) uuid() string {
	h := g.chars(32, "0123456789abcdef")
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + g.pick("8", "9", "a", "b") + h[17:20] + "-" + h[20:]
}

func (g *gen) sentence() string {
	subj := []string{"The delivery", "Customer", "Our team", "The product", "Support", "This order", "The driver"}
	verb := []string{"arrived late", "was very helpful", "needs a follow-up", "was damaged in transit", "works as expected", "should be refunded", "called back twice"}
	tail := []string{"and everything was fine.", "according to the ticket.", "so please check again.", "before the weekend.", "after the update.", "as discussed."}
	return g.pick(subj...) + " " + g.pick(verb...) + " " + g.pick(tail...)
}

// sequence returns n consecutive decimal numbers starting at start.
func sequence(start int64, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.FormatInt(start+int64(i), 10)
	}
	return out
}
