package realworld

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dqs/dqs/internal/colgen"
)

// kind is a kind of value and its label: a column is labelled with the
// label of the kind its generator emits (see the package documentation).
type kind struct {
	label string
	value func(g *gen) string
}

func k(label string, value func(g *gen) string) kind { return kind{label, value} }

// pick returns a generator choosing uniformly among vs.
func pick(vs ...string) func(g *gen) string { return func(g *gen) string { return g.Pick(vs...) } }

// zipf returns a generator choosing among vs, most frequent first.
func zipf(vs ...string) func(g *gen) string { return func(g *gen) string { return g.Zipf(vs) } }

// mixed returns a generator that takes a from the first and the rest from
// the second with probability share.
func mixed(share float64, a, b func(g *gen) string) func(g *gen) string {
	return func(g *gen) string {
		if g.Chance(share) {
			return a(g)
		}
		return b(g)
	}
}

// ---------------------------------------------------------------------------
// People

var givenNames = strings.Fields(`James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William
Barbara Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Lisa Daniel Nancy Matthew Betty
Anthony Sandra Mark Margaret Donald Ashley Steven Kimberly Andrew Emily Kenneth Donna Joshua Michelle Kevin
Carol Brian Amanda George Melissa Timothy Deborah Priya Wei Aisha Mateo Sven Ingrid Chidi Yuki Fatima Olga
Tomasz Lucía Niamh Rahul Kwame Thandiwe Dmitri Noor Hiroshi Camille Bjørn Zainab Tarquin Esperanza Ngozi`)

var surnames = strings.Fields(`Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez
Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris
Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green
Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Okonkwo Kowalczyk Lindqvist Haddad Nakamura
Fitzgerald Oyelaran Featherstonehaugh Castellanos Mbeki Vasquez Petrov Chatterjee Dubois Svensson Achterberg`)

var organisations = []string{"Acme Corp", "Globex Corporation", "Initech LLC", "Northwind Traders",
	"Umbrella Holdings", "Stark Industries", "Wayne Enterprises Inc.", "Blue Ridge Dental Group",
	"City of Springfield", "Hooli", "Vandelay Industries", "Pied Piper Inc.", "Sunrise Bakery",
	"Riverside Medical Center", "Oceanic Airlines", "Contoso Ltd"}

func (g *gen) given() string   { return g.Zipf(givenNames) }
func (g *gen) surname() string { return g.Zipf(surnames) }

func fullName(g *gen) string { return g.given() + " " + g.surname() }

// customerName writes names the way CRMs hold them: mostly "First Last",
// some "Last, First", some with a middle initial.
func customerName(g *gen) string {
	switch g.IntN(8) {
	case 0:
		return g.surname() + ", " + g.given()
	case 1:
		return g.given() + " " + string(colgen.Upper[g.IntN(26)]) + ". " + g.surname()
	}
	return fullName(g)
}

func emailOf(g *gen) string {
	first, last := strings.ToLower(g.given()), strings.ToLower(g.surname())
	first = strings.NewReplacer("ø", "o", "í", "i", "ú", "u").Replace(first)
	domain := g.Pick("gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "aol.com", "icloud.com", "example.com", "comcast.net")
	switch g.IntN(4) {
	case 0:
		return first + "." + last + "@" + domain
	case 1:
		return first[:1] + last + strconv.Itoa(g.Between(1, 99)) + "@" + domain
	case 2:
		return strings.ToUpper(first[:1]) + first[1:] + "." + strings.ToUpper(last[:1]) + last[1:] + "@" + domain
	}
	return last + "_" + first + "@" + domain
}

// nanp writes a North American number; a third use the fictional 555
// exchange that films and test data use, which no numbering plan assigns.
func nanp(g *gen) string {
	area := g.Pick("212", "312", "415", "617", "713", "303", "206", "404", "555", "555")
	exch := strconv.Itoa(g.Between(2, 9)) + g.Digits(2)
	if g.Chance(0.33) {
		exch = "555"
	}
	line := g.Digits(4)
	switch g.IntN(4) {
	case 0:
		return area + "-" + exch + "-" + line
	case 1:
		return area + "." + exch + "." + line
	}
	return "(" + area + ") " + exch + "-" + line
}

// ukPhone writes UK numbers in national format, from Ofcom's drama ranges.
func ukPhone(g *gen) string {
	switch g.IntN(3) {
	case 0:
		return "020 7946 0" + g.Digits(3)
	case 1:
		return "0161 496 0" + g.Digits(3)
	}
	return "07700 900" + g.Digits(3)
}

// frPhone writes French numbers in pairs: 06 12 34 56 78.
func frPhone(g *gen) string {
	v := "0" + g.Pick("1", "2", "3", "4", "5", "6", "7", "9")
	for i := 0; i < 4; i++ {
		v += " " + g.Digits(2)
	}
	return v
}

var streetNames = []string{"Main", "Oak", "Maple", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park", "Pine",
	"Sunset", "Highland", "Church", "Mill", "Baker", "Victoria", "Station", "Chestnut", "Walnut", "Jefferson"}
var streetTypes = []string{"Street", "St", "Avenue", "Ave", "Road", "Rd", "Drive", "Dr", "Lane", "Ln", "Blvd", "Court"}
var frenchStreets = []string{"Rue de la Paix", "Rue Victor Hugo", "Avenue des Champs-Élysées", "Boulevard Haussmann", "Rue du Bac", "Place Vendôme"}

func streetOnly(g *gen) string {
	if g.Chance(0.15) {
		return g.Pick(frenchStreets...)
	}
	return g.Pick(streetNames...) + " " + g.Pick(streetTypes...)
}

func streetAddress(g *gen) string {
	v := strconv.Itoa(g.Between(1, 9999)) + " " + g.Pick(streetNames...) + " " + g.Pick(streetTypes...)
	if g.Chance(0.15) {
		v += g.Pick(", Apt ", " #", " Unit ") + strconv.Itoa(g.Between(1, 40))
	}
	return v
}

var usCities = []string{"New York", "Los Angeles", "Chicago", "Houston", "Phoenix", "Philadelphia", "San Antonio",
	"San Diego", "Dallas", "Austin", "Seattle", "Denver", "Boston", "Portland", "Atlanta", "Miami"}
var usStates = []string{"CA", "TX", "NY", "FL", "IL", "PA", "OH", "GA", "WA", "MA", "CO", "OR"}

func dob(g *gen) string {
	t := g.Date(1940, 2005)
	switch g.IntN(3) {
	case 0:
		return t.Format("01/02/2006")
	case 1:
		return t.Format("2006-01-02")
	}
	return t.Format("1/2/2006")
}

func ssn(g *gen) string {
	return fmt.Sprintf("%03d-%02d-%04d", g.Between(1, 665), g.Between(1, 99), g.Between(1, 9999))
}

// ---------------------------------------------------------------------------
// Documents and accounts

// vinAlphabet is the ISO 3779 alphabet: no I, O or Q.
const vinAlphabet = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"

// vinLetterValue and vinPositionWeight are the ISO 3779 transliteration and
// weights, written here independently of the classifier's validator.
var vinLetterValue = map[byte]int{'A': 1, 'B': 2, 'C': 3, 'D': 4, 'E': 5, 'F': 6, 'G': 7, 'H': 8, 'J': 1, 'K': 2,
	'L': 3, 'M': 4, 'N': 5, 'P': 7, 'R': 9, 'S': 2, 'T': 3, 'U': 4, 'V': 5, 'W': 6, 'X': 7, 'Y': 8, 'Z': 9}
var vinPositionWeight = []int{8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2}

// vinBody draws a VIN with a placeholder check digit: a world manufacturer
// identifier, five vehicle descriptor characters, a model year, a plant and
// a six-digit serial.
func vinBody(g *gen, wmis ...string) []byte {
	v := g.Pick(wmis...) + g.Chars(5, vinAlphabet) + "0" + g.Chars(1, "ABCDEFGHJKLMNPRSTVWXY123456789") +
		g.Chars(1, vinAlphabet) + g.Digits(6)
	return []byte(v)
}

// northAmericanVIN fills in the check digit at position 9.
func northAmericanVIN(g *gen) string {
	v := vinBody(g, "1HG", "1FT", "2T1", "3VW", "5YJ", "1G1", "4T1", "JHM", "KNA")
	sum := 0
	for i, ch := range v {
		x, ok := vinLetterValue[ch]
		if !ok {
			x = int(ch - '0')
		}
		sum += x * vinPositionWeight[i]
	}
	v[8] = "0123456789X"[sum%11]
	return string(v)
}

// europeanVIN leaves position 9 as the maker writes it: any character.
func europeanVIN(g *gen) string {
	v := vinBody(g, "WVW", "WBA", "WDD", "VF1", "ZFA", "YV1", "SAL", "TMB")
	v[8] = vinAlphabet[g.IntN(len(vinAlphabet))]
	return string(v)
}

// testCard writes 16-digit test card numbers with an issuer prefix that
// fail the Luhn check, as generated test data does.
func testCard(g *gen) string {
	for {
		v := g.Pick("4", "4", "51", "52", "55", "6011") + g.Digits(15)
		v = v[:16]
		if colgen.LuhnComplete(v[:15]) != v {
			return v
		}
	}
}

func realCard(g *gen) string {
	p := g.PAN(g.Pick("4", "51", "55", "37"), 16)
	if strings.HasPrefix(p, "37") {
		p = g.PAN("37", 15)
	}
	return colgen.FormatPAN(p, g.Pick("bare", "spaced", "dash"))
}

// passport draws passport numbers of several issuers: US and UK nine
// digits, German nine characters, French 99AA99999, Indian A9999999.
func passport(g *gen) string {
	switch g.IntN(5) {
	case 0, 1:
		return g.Digits(9)
	case 2:
		return g.Chars(1, "CFGHJK") + g.Chars(8, "CFGHJKLMNPRTVWXYZ0123456789")
	case 3:
		return g.Digits(2) + g.Chars(2, colgen.Upper) + g.Digits(5)
	}
	return g.Chars(1, colgen.Upper) + g.Digits(7)
}

// driverLicense draws US state formats: California A9999999, New York
// 999 999 999, Texas 99999999, Illinois A99999999999.
func driverLicense(g *gen) string {
	switch g.IntN(4) {
	case 0:
		return g.Chars(1, colgen.Upper) + g.Digits(7)
	case 1:
		return g.Digits(3) + " " + g.Digits(3) + " " + g.Digits(3)
	case 2:
		return g.Digits(8)
	}
	return g.Chars(1, colgen.Upper) + g.Digits(11)
}

// bankAccount draws domestic account numbers: US 8–12 digits, grouped
// 123-456789-01 forms.
func bankAccount(g *gen) string {
	if g.Chance(0.3) {
		return g.Digits(3) + "-" + g.Digits(6) + "-" + g.Digits(2)
	}
	return g.Digits(g.Between(8, 12))
}

func iban(g *gen) string {
	switch g.IntN(3) {
	case 0:
		return colgen.IBAN("GB", g.Chars(4, colgen.Upper)+g.Digits(14))
	case 1:
		return colgen.IBAN("DE", g.Digits(18))
	}
	return colgen.IBAN("FR", g.Digits(23))
}

// ---------------------------------------------------------------------------
// Online identifiers

func mac(g *gen) string {
	b := g.Bytes(6)
	parts := make([]string, 6)
	for i, x := range b {
		parts[i] = fmt.Sprintf("%02x", x)
	}
	switch g.IntN(3) {
	case 0:
		return strings.ToUpper(strings.Join(parts, ":"))
	case 1:
		return strings.Join(parts, ":")
	}
	return strings.ToUpper(strings.Join(parts, "-"))
}

func ciscoMAC(g *gen) string {
	h := g.HexString(12)
	return h[:4] + "." + h[4:8] + "." + h[8:]
}

func username(g *gen) string {
	first, last := strings.ToLower(g.given()), strings.ToLower(g.surname())
	first = strings.NewReplacer("ø", "o", "í", "i", "ú", "u").Replace(first)
	switch g.IntN(5) {
	case 0:
		return first[:1] + last
	case 1:
		return first + "." + last
	case 2:
		return first + strconv.Itoa(g.Between(1, 2005))
	case 3:
		return g.Pick("dark", "cool", "happy", "red", "lazy", "ninja", "pixel") + g.Pick("_", "", ".") + g.Pick("wolf", "coder", "panda", "fox", "gamer") + strconv.Itoa(g.Between(1, 999))
	}
	return last + "_" + first[:1]
}

func handle(g *gen) string { return "@" + username(g) }

func userAgent(g *gen) string {
	return g.Zipf([]string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
		"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Mobile Safari/537.36",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	})
}

func pagePath(g *gen) string {
	return g.Pick("/", "/products/", "/blog/", "/cart", "/checkout", "/search?q=", "/category/", "/static/js/app.") +
		g.Pick("", "shoes", "2023/11/"+strconv.Itoa(g.Between(1, 30)), g.HexString(8), "outdoor-jackets", "main.js")
}

func siteURL(host string) func(g *gen) string {
	return func(g *gen) string { return "https://" + host + pagePath(g) }
}

func referrer(g *gen) string {
	return g.Pick("https://www.google.com/", "https://www.bing.com/search?q=rain+jacket", "https://t.co/"+g.Chars(10, colgen.Alnum),
		"https://www.facebook.com/", "http://shop.example.com"+pagePath(g), "https://duckduckgo.com/")
}

// ---------------------------------------------------------------------------
// Things (non-personal)

func seq(start int) func(g *gen) string {
	n := start
	return func(g *gen) string { n += g.Between(1, 3); return strconv.Itoa(n) }
}

func rowIndex() func(g *gen) string {
	n := -1
	return func(g *gen) string { n++; return strconv.Itoa(n) }
}

func ints(lo, hi int) func(g *gen) string {
	return func(g *gen) string { return strconv.Itoa(g.Between(lo, hi)) }
}

func decimals(lo, hi float64, d int) func(g *gen) string {
	return func(g *gen) string { return strconv.FormatFloat(g.Float(lo, hi), 'f', d, 64) }
}

func dollars(lo, hi float64) func(g *gen) string {
	return func(g *gen) string { return "$" + strconv.FormatFloat(g.Float(lo, hi), 'f', 2, 64) }
}

func dates(y0, y1 int, layout string) func(g *gen) string {
	return func(g *gen) string { return g.Date(y0, y1).Format(layout) }
}

func instants(y0, y1 int, layout string) func(g *gen) string {
	return func(g *gen) string { return g.Instant(y0, y1).Format(layout) }
}

func code(prefix string, n int, alphabet string) func(g *gen) string {
	return func(g *gen) string { return prefix + g.Chars(n, alphabet) }
}

func hexDigest(n int) func(g *gen) string { return func(g *gen) string { return g.HexString(n) } }

// routingNumber draws ABA routing numbers (with their 3-7-1 check digit):
// they name a bank, not an account holder.
func routingNumber(g *gen) string {
	d := g.Digits(8)
	w := []int{3, 7, 1, 3, 7, 1, 3, 7}
	s := 0
	for i := range d {
		s += int(d[i]-'0') * w[i]
	}
	return d + strconv.Itoa((10-s%10)%10)
}

func versionString(g *gen) string {
	return fmt.Sprintf("%d.%d.%d", g.Between(1, 4), g.Between(0, 12), g.Between(0, 30))
}

func sentence(g *gen) string {
	return g.Pick("Payment to", "Transfer from", "Card purchase at", "Direct debit", "Refund from", "ATM withdrawal") + " " +
		g.Pick("AMAZON MKTPLACE", "TESCO STORES 2231", "SHELL OIL 5734", "Netflix.com", "CITY WATER DEPT", "STARBUCKS #1123", "PAYROLL ACME CORP") +
		" " + g.Pick("ref "+g.Digits(6), "on "+g.Date(2023, 2023).Format("02 Jan"), "", "via online banking")
}
