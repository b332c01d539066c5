package standardize

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The generator of realistic columns for the benchmark, the oracle test
// and the fuzz seeds: city names with typos and case, whitespace and
// accent variants, company names, e-mail addresses. Seeded, deterministic.

var realCities = []string{
	"Stockholm", "Göteborg", "Malmö", "Uppsala", "Västerås", "Örebro", "Linköping",
	"Helsingborg", "Jönköping", "Norrköping", "København", "Århus", "Oslo", "Bergen",
	"Trondheim", "Helsinki", "Tampere", "Reykjavík", "München", "Köln", "Düsseldorf",
	"Zürich", "Genève", "Kraków", "Łódź", "Wrocław", "Praha", "Brno", "São Paulo",
	"Bogotá", "Montréal", "Québec", "New York", "Los Angeles", "San Francisco",
	"Paris", "Lyon", "Besançon", "Orléans", "Córdoba", "Málaga", "A Coruña", "Lisboa",
	"北京", "上海", "東京", "大阪", "서울", "부산", "Москва", "Санкт-Петербург",
}

var syllables = []string{
	"ka", "lo", "ber", "sund", "holm", "vik", "by", "torp", "ham", "stad", "ing",
	"ton", "vil", "burg", "dal", "berg", "fors", "mar", "ri", "en", "sa", "no",
	"te", "ul", "an", "ör", "ås", "kle", "mon", "tre", "val", "gar", "nes", "lund",
	"ro", "sel", "wick", "field", "ford", "ley", "mouth", "chester", "bo", "dor",
	"ek", "fal", "gre", "hult", "is", "ja", "kro", "lin", "mo", "na", "ost", "pe",
	"qui", "ras", "sko", "tun", "ub", "ve", "wal", "xa", "yst", "zel", "ach", "bri",
	"cor", "dun", "el", "fin", "gil", "har", "ith", "jor", "kel", "lam", "mer",
	"nor", "ol", "pra", "quo", "rin", "sol", "tor", "ur", "ven", "win", "ys", "ze",
	"ville", "heim", "hausen", "dorf", "bach", "ange", "ac", "ona", "ez", "polis",
}

var companyWords = []string{
	"Nordic", "Global", "Acme", "United", "Smart", "Blue", "Green", "Digital",
	"Solutions", "Systems", "Logistics", "Trading", "Consulting", "Foods",
	"Energy", "Capital", "Partners", "Labs", "Works", "Holding", "Group",
	"Software", "Data", "Analytics", "Media", "Health", "Bio", "Tech", "Marine",
}

var companySuffixes = []string{"AB", "Inc.", "Ltd", "GmbH", "LLC", "Oy", "AS", "S.A.", "& Co", "plc", ""}

var firstNames = []string{
	"anna", "erik", "lars", "maria", "karin", "johan", "sara", "peter", "emma",
	"oskar", "lina", "nils", "ida", "per", "eva", "olof", "maja", "hugo", "elsa",
	"john", "mary", "james", "linda", "robert", "susan", "michael", "sofia",
	"liam", "noah", "olivia", "lucas", "chloe", "mateo", "yuki", "wei", "ahmed",
	"fatima", "omar", "leila", "ivan", "olga", "pavel", "zofia", "jan", "piotr",
	"giulia", "marco", "luca", "chiara", "pierre", "camille", "louis", "ines",
	"hans", "greta", "klaus", "jurgen", "aiko", "hiro", "min", "jun", "seo",
	"priya", "arjun", "ravi", "ananya", "kwame", "amara", "tunde", "zara",
}

var lastNames = []string{
	"andersson", "johansson", "karlsson", "nilsson", "eriksson", "larsson",
	"olsson", "persson", "svensson", "gustafsson", "smith", "johnson", "brown",
	"garcia", "miller", "davis", "martinez", "lopez", "wilson", "moore", "lee",
	"nguyen", "kim", "chen", "müller", "schmidt", "novak", "kowalski", "rossi",
}

var domains = []string{
	"gmail.com", "outlook.com", "yahoo.com", "hotmail.com", "icloud.com",
	"example.se", "corp.example.com", "telia.se", "web.de", "proton.me",
}

var tlds = []string{".com", ".se", ".de", ".co.uk", ".fr", ".io", ".net", ".org", ".nl", ".fi"}

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen {
	return &gen{rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))}
}

func (g *gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

// zipf draws an index in [0, n) with a long tail: most rows go to few.
func (g *gen) zipf(n int) int {
	return min(n-1, int(float64(n)*g.r.Float64()*g.r.Float64()*g.r.Float64()))
}

// city is the i-th city name: a real one or a made-up one of syllables.
func (g *gen) city(i int) string {
	if i < len(realCities) {
		return realCities[i]
	}
	r := rand.New(rand.NewPCG(uint64(i), 7))
	var b strings.Builder
	for range 2 + r.IntN(2) {
		b.WriteString(syllables[r.IntN(len(syllables))])
	}
	name := capitalise(b.String())
	if r.IntN(8) == 0 {
		name = [...]string{"Nya ", "Övre ", "Norra ", "East ", "Port "}[r.IntN(5)] + name
	}
	return name
}

func (g *gen) company(i int) string {
	r := rand.New(rand.NewPCG(uint64(i), 11))
	name := companyWords[r.IntN(len(companyWords))] + " " + companyWords[r.IntN(len(companyWords))]
	if r.IntN(3) == 0 {
		name = capitalise(syllables[r.IntN(len(syllables))]+syllables[r.IntN(len(syllables))]) + " " + name
	}
	if s := companySuffixes[r.IntN(len(companySuffixes))]; s != "" {
		name += " " + s
	}
	return name
}

// email is an address of a large population: real and made-up first and
// last names in the usual local-part formats, at a mail provider or at a
// company's domain.
func (g *gen) email() string {
	first := g.pick(firstNames)
	if g.r.IntN(2) == 0 {
		first = g.pick(syllables) + g.pick(syllables) + g.pick([]string{"a", "o", "e", "i", ""})
	}
	last := g.pick(lastNames)
	if g.r.IntN(4) != 0 {
		last = g.pick(syllables) + g.pick(syllables) + g.pick([]string{"son", "sen", "berg", "er", "ez", "ski", "ini", "ov", ""})
	}
	var local string
	switch g.r.IntN(6) {
	case 0:
		local = first + "." + last
	case 1:
		local = first + last
	case 2:
		local = string([]rune(first)[:1]) + "." + last
	case 3:
		local = first + "_" + last
	case 4:
		local = last + "." + first
	default:
		local = first + "." + last + strconv.Itoa(g.r.IntN(10000))
	}
	domain := g.pick(domains)
	if g.r.IntN(2) == 0 {
		domain = strings.ToLower(g.pick(companyWords)) + g.pick(syllables) + g.pick(tlds)
	}
	return local + "@" + domain
}

func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// variant is a rare spelling of s: a case, whitespace or accent variant or
// a typo.
func (g *gen) variant(s string) string {
	switch g.r.IntN(8) {
	case 0:
		return strings.ToLower(s)
	case 1:
		return strings.ToUpper(s)
	case 2:
		return s + " "
	case 3:
		return " " + strings.ReplaceAll(s, " ", "  ")
	default:
		return g.typo(s)
	}
}

// typo deletes, inserts, substitutes or swaps one letter.
func (g *gen) typo(s string) string {
	r := []rune(s)
	if len(r) < 3 {
		return s + "x"
	}
	i := 1 + g.r.IntN(len(r)-2)
	switch g.r.IntN(4) {
	case 0:
		r = append(r[:i], r[i+1:]...)
	case 1:
		r = append(r[:i], append([]rune{rune('a' + g.r.IntN(26))}, r[i:]...)...)
	case 2:
		r[i] = rune('a' + g.r.IntN(26))
	default:
		r[i], r[i+1] = r[i+1], r[i]
	}
	return string(r)
}

// column generates n distinct values: a third each of cities, companies
// and e-mail addresses. A canonical spelling takes many rows, its
// variants a few each.
func (g *gen) column(n int, cities, companies int) []ValueCount {
	idx := make(map[string]int, n)
	out := make([]ValueCount, 0, n)
	add := func(v string, c int64) {
		if i, ok := idx[v]; ok {
			out[i].Count += c
			return
		}
		idx[v] = len(out)
		out = append(out, ValueCount{v, c})
	}
	for len(out) < n {
		var base string
		switch g.r.IntN(3) {
		case 0:
			base = g.city(g.zipf(cities))
		case 1:
			base = g.company(g.zipf(companies))
		default:
			base = g.email()
			if g.r.IntN(10) == 0 {
				base = g.variant(base)
			}
			add(base, 1+int64(g.r.IntN(3)))
			continue
		}
		if g.r.IntN(4) == 0 {
			add(g.variant(base), 1+int64(g.r.IntN(5)))
		} else {
			add(base, 20+int64(g.r.IntN(200)))
		}
	}
	return out
}
