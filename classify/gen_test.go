package classify

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/dqs/dqs/internal/colgen"
)

// Generators of realistic test columns. All are deterministic for a seed.
// The draws and the generic value generators are colgen's, shared with the
// evaluation corpus; what is here is the mix of formats these tests want.

type gen struct{ *colgen.Gen }

func newGen(seed uint64) *gen { return &gen{colgen.New(rand.New(rand.NewPCG(seed, seed*7+1)))} }

// column builds n values with f, then replaces a junk share of them with junk.
func (g *gen) column(n int, junk float64, f func() string, junkVals ...string) []string {
	if len(junkVals) == 0 {
		junkVals = []string{"unknown", "test", "?", "xxx", "asdf", "see notes", "TBD", "0"}
	}
	out := make([]string, n)
	for i := range out {
		if g.Float64() < junk {
			out[i] = g.Pick(junkVals...)
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

// emailStyle keeps to the five commonest forms of local part, so that the
// tests need not follow every variant the evaluation corpus has.
var emailStyle = colgen.EmailStyle{Forms: 5, LastBirthYear: 2005, Tags: []string{"news"}, Domains: tDomains}

func (g *gen) email() string {
	f := strings.ToLower(asciiFold(g.Pick(tGiven...)))
	l := strings.ToLower(asciiFold(g.Pick(tSurname...)))
	e := g.Email(f, l, emailStyle)
	if g.IntN(10) == 0 {
		e = strings.ToUpper(e[:1]) + e[1:]
	}
	return e
}

func (g *gen) phone() string {
	for {
		var v string
		switch g.IntN(14) {
		case 0:
			v = fmt.Sprintf("+46 7%s %s %s %s", g.Pick("0", "2", "3", "6", "9"), g.Digits(3), g.Digits(2), g.Digits(2))
		case 1:
			v = fmt.Sprintf("07%s-%s %s %s", g.Pick("0", "2", "3", "6"), g.Digits(3), g.Digits(2), g.Digits(2))
		case 2:
			v = fmt.Sprintf("+358 4%s %s %s", g.Pick("0", "1", "4", "5"), g.Digits(3), g.Digits(4))
		case 3:
			v = fmt.Sprintf("050-%s", g.Digits(7))
		case 4:
			v = fmt.Sprintf("+47 %s%s %s %s", g.Pick("4", "9"), g.Digits(2), g.Digits(2), g.Digits(3))
		case 5:
			v = fmt.Sprintf("+45 %s%s %s %s %s", g.Pick("2", "3", "4", "5", "6"), g.Digits(1), g.Digits(2), g.Digits(2), g.Digits(2))
		case 6:
			v = fmt.Sprintf("+49 15%s %s", g.Pick("1", "2", "7", "9"), g.Digits(8))
		case 7:
			v = fmt.Sprintf("030 %s", g.Digits(8))
		case 8:
			v = fmt.Sprintf("+44 7%s %s", g.Pick("4", "5", "7", "8", "9")+g.Digits(2), g.Digits(6))
		case 9:
			v = fmt.Sprintf("07%s %s", g.Pick("4", "5", "7", "8", "9")+g.Digits(3), g.Digits(6))
		case 10:
			v = fmt.Sprintf("(%s) %d%s-%s", g.Pick("202", "212", "415", "617", "312", "305"), g.Between(2, 9), g.Digits(2), g.Digits(4))
		case 11:
			v = fmt.Sprintf("+1 %s-%d%s-%s", g.Pick("202", "646", "206", "512"), g.Between(2, 9), g.Digits(2), g.Digits(4))
		case 12:
			v = fmt.Sprintf("+33 6 %s %s %s %s", g.Digits(2), g.Digits(2), g.Digits(2), g.Digits(2))
		default:
			v = fmt.Sprintf("06 %s %s %s %s", g.Digits(2), g.Digits(2), g.Digits(2), g.Digits(2))
		}
		if validPhone(v) {
			return v
		}
	}
}

func (g *gen) pan() string {
	var p string
	switch g.IntN(6) {
	case 0, 1:
		p = g.PAN("4", 16)
	case 2:
		p = g.PAN(strconv.Itoa(g.Between(51, 55)), 16)
	case 3:
		p = g.PAN(strconv.Itoa(g.Between(2221, 2720)), 16)
	case 4:
		p = g.PAN(g.Pick("34", "37"), 15)
	default:
		p = g.PAN("6011", 16)
	}
	return colgen.FormatPAN(p, []string{"bare", "space", "dash"}[g.IntN(3)])
}

func (g *gen) iban() string {
	var s string
	switch g.IntN(8) {
	case 0:
		s = colgen.IBAN("SE", g.Digits(20))
	case 1:
		s = colgen.IBAN("DE", g.Digits(18))
	case 2:
		s = colgen.IBAN("GB", g.Chars(4, colgen.Upper)+g.Digits(14))
	case 3:
		s = colgen.IBAN("FI", g.Digits(14))
	case 4:
		s = colgen.IBAN("NO", g.Digits(11))
	case 5:
		s = colgen.IBAN("DK", g.Digits(14))
	case 6:
		s = colgen.IBAN("FR", g.Digits(23))
	default:
		s = colgen.IBAN("NL", g.Chars(4, colgen.Upper)+g.Digits(10))
	}
	if g.IntN(2) == 0 {
		return colgen.Every4(s, " ")
	}
	return s
}

func (g *gen) ssn() string {
	a := g.Between(1, 899)
	if a == 666 {
		a = 667
	}
	return fmt.Sprintf("%03d-%02d-%04d", a, g.Between(1, 99), g.Between(1, 9999))
}

// date draws a day from 1 January y0 up to, but not including, 31 December
// y1. Unlike colgen's Date it leaves out the last day; kept so that every
// seed still yields the columns these tests were written against.
func (g *gen) date(y0, y1 int) time.Time {
	return g.Day(time.Date(y0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(y1, 12, 31, 0, 0, 0, 0, time.UTC))
}

func (g *gen) sePnr() string {
	d := g.date(1915, 2012)
	ten := g.SEPnr(d, g.IntN(15) == 0) // now and then a samordningsnummer
	switch {
	case d.Year() < 1926:
		return ten[:6] + "+" + ten[6:]
	}
	switch g.IntN(3) {
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
		sign = g.Pick("A", "B")
	} else if g.IntN(5) == 0 {
		sign = "Y"
	}
	return colgen.FIHetu(d, sign, g.Between(2, 899))
}

func (g *gen) noFnr() string {
	return g.NOFnr(func() time.Time { return g.date(1940, 2015) }, func() bool { return g.IntN(10) == 0 })
}

func (g *gen) dkCPR() string {
	d := g.date(1940, 2020)
	c7 := g.Between(0, 3)
	if d.Year() >= 2000 {
		c7 = 4
	}
	return fmt.Sprintf("%02d%02d%02d-%d%s", d.Day(), int(d.Month()), d.Year()%100, c7, g.Digits(3))
}

func (g *gen) ip() string {
	if g.IntN(4) == 0 {
		parts := g.Hextets()
		parts[0] = "2001"
		return strings.Join(parts, ":")
	}
	return g.IPv4()
}

func (g *gen) fullName() string {
	switch g.IntN(6) {
	case 0:
		return g.Pick(tSurname...) + ", " + g.Pick(tGiven...)
	case 1:
		return g.Pick(tGiven...) + " " + g.Pick(tGiven...) + " " + g.Pick(tSurname...)
	case 2:
		return g.Pick(tGiven...) + "-" + g.Pick("Karin", "Marie", "Luc", "Pekka") + " " + g.Pick(tSurname...)
	case 3:
		return g.Pick("Ludwig van", "Ursula von der", "Jan de", "Anna af") + " " + g.Pick("Berg", "Leyen", "Vries", "Klercker")
	default:
		return g.Pick(tGiven...) + " " + g.Pick(tSurname...)
	}
}

func (g *gen) street() string {
	switch g.IntN(8) {
	case 0:
		return fmt.Sprintf("%s %d", g.Pick("Storgatan", "Drottninggatan", "Kungsgatan", "Sveavägen", "Odengatan"), g.Between(1, 140))
	case 1:
		return fmt.Sprintf("%s %d %s", g.Pick("Mannerheimintie", "Hämeentie", "Aleksanterinkatu"), g.Between(1, 90), g.Pick("A 3", "B 12", "C"))
	case 2:
		return fmt.Sprintf("%s %d", g.Pick("Karl Johans gate", "Bogstadveien", "Thorvald Meyers gate"), g.Between(1, 80))
	case 3:
		return fmt.Sprintf("%s %d, %d. th.", g.Pick("Nørregade", "Vesterbrogade", "Amagerbrogade"), g.Between(1, 200), g.Between(1, 5))
	case 4:
		return fmt.Sprintf("%s %d", g.Pick("Hauptstraße", "Berliner Strasse", "Goethestr.", "Lindenallee"), g.Between(1, 120))
	case 5:
		return fmt.Sprintf("%d %s", g.Between(1, 200), g.Pick("rue de la Paix", "avenue des Champs-Élysées", "boulevard Haussmann"))
	case 6:
		return fmt.Sprintf("%d %s %s", g.Between(1, 9999), g.Pick("Main", "Oak", "Maple", "Park", "Elm"), g.Pick("Street", "St", "Ave", "Road", "Blvd", "Lane"))
	default:
		return fmt.Sprintf("%d%s Baker Street", g.Between(1, 250), g.Pick("", "B", "A"))
	}
}

func (g *gen) postal() string {
	switch g.IntN(7) {
	case 0:
		return fmt.Sprintf("%03d %02d", g.Between(100, 984), g.IntN(100))
	case 1:
		return g.Digits(5)
	case 2:
		return fmt.Sprintf("%04d", g.Between(1, 9990))
	case 3:
		return fmt.Sprintf("%s%d %d%s", g.Pick("SW", "EC", "N", "M", "B"), g.Between(1, 20), g.Between(1, 9), g.Chars(2, "ABDEFGHJLNPQRSTUWXYZ"))
	case 4:
		return g.Digits(5) + "-" + g.Digits(4)
	case 5:
		return "SE-" + fmt.Sprintf("%03d %02d", g.Between(100, 984), g.IntN(100))
	default:
		return fmt.Sprintf("%04d %s", g.Between(1000, 9999), g.Chars(2, "ABCDEFGHJKLMNPRSTVWXZ"))
	}
}

func (g *gen) dob() string {
	d := g.date(1932, 2006)
	switch g.IntN(4) {
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
	return g.WordPassword(words, []string{"", "!", "#", "?", ""})
}

func (g *gen) bcrypt() string { return g.Bcrypt("10", "12") }

func (g *gen) argon2() string {
	return "$argon2id$v=19$m=65536,t=3,p=4$" + g.Chars(22, colgen.Alnum) + "$" + g.Chars(43, colgen.Alnum)
}

func (g *gen) apiKey() string {
	switch g.IntN(4) {
	case 0:
		return "sk_live_" + g.Chars(24, colgen.Alnum)
	case 1:
		return "AKIA" + g.Chars(16, colgen.UpperAlnum)
	case 2:
		return g.GitHubToken()
	default:
		return g.SlackBotToken()
	}
}

func (g *gen) icd10() string {
	return g.Pick("E11.9", "I10", "J45.909", "F32.1", "M54.5", "K21.0", "E78.5", "F41.1", "J06.9", "N39.0",
		"G43.909", "E66.9", "I25.10", "C50.911", "Z00.00", "R51", "L40.0", "F90.0", "E03.9", "M17.11")
}

func (g *gen) randomBytesB64(n int) string { return base64.StdEncoding.EncodeToString(g.Bytes(n)) }

// uuid draws the hex digits one by one (the corpus draws bytes instead).
func (g *gen) uuid() string { return g.UUID(g.Chars(32, colgen.LowerHex)) }

func (g *gen) sentence() string {
	subj := []string{"The delivery", "Customer", "Our team", "The product", "Support", "This order", "The driver"}
	verb := []string{"arrived late", "was very helpful", "needs a follow-up", "was damaged in transit", "works as expected", "should be refunded", "called back twice"}
	tail := []string{"and everything was fine.", "according to the ticket.", "so please check again.", "before the weekend.", "after the update.", "as discussed."}
	return g.Pick(subj...) + " " + g.Pick(verb...) + " " + g.Pick(tail...)
}

// sequence returns n consecutive decimal numbers starting at start.
func sequence(start int64, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.FormatInt(start+int64(i), 10)
	}
	return out
}
