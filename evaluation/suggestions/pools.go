package suggestions

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/nyaruka/phonenumbers"
)

// The values the tables are made of.

// First names, with the legitimately different spellings real people
// have: a column of them must not be "standardised".
var firstNames = []string{
	"Anna", "Ana", "Anne", "Ann", "Erik", "Eric", "Erika", "Johan", "John", "Jon", "Jonathan", "Sara", "Sarah",
	"Katherine", "Catherine", "Kathryn", "Mohammed", "Mohammad", "Muhammad", "Philip", "Phillip", "Steven", "Stephen",
	"Maria", "Marie", "Mari", "Lars", "Karl", "Carl", "Emma", "Emil", "Elin", "Ellen", "Oskar", "Oscar", "Hanna", "Hannah",
	"Lena", "Lina", "Nils", "Niels", "Ingrid", "Astrid", "Liam", "Noah", "Olivia", "Sofia", "Sophia", "Lucas", "Lukas",
}

var lastNames = []string{
	"Andersson", "Anderson", "Johansson", "Johanson", "Karlsson", "Carlsson", "Nilsson", "Nielsen", "Olsen", "Olson",
	"Smith", "Smyth", "Meyer", "Meier", "Mayer", "Müller", "Muller", "Svensson", "Larsson", "Eriksson", "Ericsson",
	"Berg", "Bergström", "Lindqvist", "Lindquist", "Novak", "García", "Garcia", "Kowalski", "Nguyen", "Öberg", "Åberg",
	"MacDonald", "Macdonald", "O'Brien", "van Dijk", "de Vries", "Schmidt", "Schmitt", "Jensen", "Hansen", "Virtanen",
}

// A city and its postal codes.
type city struct {
	name  string
	zips  []string
	state string
}

var swedishCities = []city{
	{"Stockholm", []string{"11122", "11352", "11453"}, "Stockholm"}, {"Göteborg", []string{"41103", "41263"}, "Västra Götaland"},
	{"Malmö", []string{"21119", "21422"}, "Skåne"}, {"Uppsala", []string{"75220"}, "Uppsala"}, {"Västerås", []string{"72211"}, "Västmanland"},
	{"Örebro", []string{"70210"}, "Örebro"}, {"Linköping", []string{"58223"}, "Östergötland"}, {"Helsingborg", []string{"25221"}, "Skåne"},
	{"Jönköping", []string{"55318"}, "Jönköping"}, {"Norrköping", []string{"60224"}, "Östergötland"}, {"Lund", []string{"22100"}, "Skåne"},
	{"Umeå", []string{"90326"}, "Västerbotten"},
}

var usCities = []city{
	{"Austin", []string{"78701", "78704"}, "TX"}, {"Houston", []string{"77002"}, "TX"}, {"Seattle", []string{"98101", "98109"}, "WA"},
	{"Portland", []string{"97201"}, "OR"}, {"Denver", []string{"80202"}, "CO"}, {"Boston", []string{"02108", "02116"}, "MA"},
	{"Chicago", []string{"60601", "60611"}, "IL"}, {"San Francisco", []string{"94103"}, "CA"}, {"Los Angeles", []string{"90012"}, "CA"},
	{"New York", []string{"10001", "10013"}, "NY"}, {"Atlanta", []string{"30303"}, "GA"}, {"Phoenix", []string{"85004"}, "AZ"},
}

var germanCities = []city{
	{"Berlin", []string{"10115", "10178"}, "Berlin"}, {"München", []string{"80331", "80469"}, "Bayern"}, {"Hamburg", []string{"20095"}, "Hamburg"},
	{"Köln", []string{"50667"}, "Nordrhein-Westfalen"}, {"Frankfurt am Main", []string{"60311"}, "Hessen"},
	{"Stuttgart", []string{"70173"}, "Baden-Württemberg"}, {"Düsseldorf", []string{"40213"}, "Nordrhein-Westfalen"},
	{"Leipzig", []string{"04109"}, "Sachsen"}, {"Dresden", []string{"01067"}, "Sachsen"}, {"Hannover", []string{"30159"}, "Niedersachsen"},
}

var countries = []string{"Sweden", "Norway", "Denmark", "Finland", "Germany", "France", "United Kingdom", "United States", "Netherlands", "Spain"}

// countryVariants are other spellings of a country that only a person
// (or a table of names) knows: no clustering links them.
var countryVariants = map[string][]string{
	"Sweden": {"Sverige", "SE"}, "Norway": {"Norge"}, "Denmark": {"Danmark"}, "Germany": {"Deutschland", "DE"},
	"United Kingdom": {"UK", "U.K.", "Great Britain"}, "United States": {"USA", "U.S.", "US"}, "Netherlands": {"Holland", "The Netherlands"},
	"Finland": {"Suomi"}, "Spain": {"España"}, "France": {"FR"},
}

var companies = []string{
	"Acme Corp", "Globex", "Initech", "Umbrella Group", "Stark Industries", "Wayne Enterprises", "Hooli", "Vandelay Industries",
	"Nordic Freight AB", "Svensk Bygg AB", "Tyrell Systems", "Soylent Foods", "Cyberdyne", "Aperture Labs", "Wonka Industries",
	"Massive Dynamic", "Oceanic Airlines", "Gringotts Bank", "Monarch Solutions", "Blue Sun Corp",
}

var domains = []string{"gmail.com", "outlook.com", "yahoo.com", "hotmail.com", "icloud.com", "proton.me", "telia.se", "company.com"}

// pick is a random element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// skewed is an element of xs, the first ones more often (Zipf-like), as
// real vocabularies are.
func skewed[T any](r *rand.Rand, xs []T) T {
	i := int(float64(len(xs)) * r.Float64() * r.Float64())
	return xs[min(i, len(xs)-1)]
}

// day is an ISO date within days after from.
func day(r *rand.Rand, from string, days int) string {
	t, err := time.Parse("2006-01-02", from)
	if err != nil {
		panic(err)
	}
	return t.AddDate(0, 0, r.IntN(days)).Format("2006-01-02")
}

// amount is a decimal with two digits between lo and hi.
func amount(r *rand.Rand, lo, hi float64) string {
	return fmt.Sprintf("%.2f", lo+(hi-lo)*r.Float64())
}

// phone is a valid E.164 number of region.
func phone(r *rand.Rand, region string) string {
	for {
		var v string
		switch region {
		case "SE":
			v = fmt.Sprintf("+467%d%07d", pick(r, []int{0, 2, 3, 6, 9}), r.IntN(10_000_000))
		case "US":
			v = fmt.Sprintf("+1%d%d%02d%04d", pick(r, []int{212, 312, 415, 512, 617, 713, 206, 303, 404, 305}), 2+r.IntN(8), r.IntN(100), r.IntN(10_000))
		case "GB":
			v = fmt.Sprintf("+447%d%08d", 1+r.IntN(9), r.IntN(100_000_000))
		case "DE":
			v = fmt.Sprintf("+4915%d%08d", 1+r.IntN(9), r.IntN(100_000_000))
		case "NO":
			v = fmt.Sprintf("+474%07d", r.IntN(10_000_000))
		default:
			panic("no numbers of " + region)
		}
		n, err := phonenumbers.Parse(v, "ZZ")
		if err == nil && phonenumbers.IsValidNumber(n) && phonenumbers.Format(n, phonenumbers.E164) == v {
			return v
		}
	}
}

// mail is an e-mail address made of a name, as people's are.
func mail(r *rand.Rand, first, last string, domain string) string {
	clean := func(s string) string {
		s = strings.ToLower(s)
		return strings.Map(func(c rune) rune {
			switch c {
			case 'å', 'ä', 'á':
				return 'a'
			case 'ö', 'ø':
				return 'o'
			case 'ü':
				return 'u'
			case 'í':
				return 'i'
			case ' ', '\'':
				return -1
			}
			return c
		}, s)
	}
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("%s.%s@%s", clean(first), clean(last), domain)
	case 1:
		return fmt.Sprintf("%s%s%d@%s", clean(first)[:1], clean(last), r.IntN(100), domain)
	}
	return fmt.Sprintf("%s_%s%d@%s", clean(first), clean(last), 1950+r.IntN(55), domain)
}
