package classify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ---------------------------------------------------------------------------
// Person names and addresses

// nameShape reports whether v looks like a person name (1–4 capitalised
// alphabetic words, allowing particles, hyphens, apostrophes, initials and
// "Last, First") and whether a word is in the common-names list.
func nameShape(v string) (ok, dict, multi bool) {
	if strings.ToLower(v) == v && hasLetter(v) {
		// Typed in lower case ("anna svensson"): a name only when the names
		// list recognises it, since any lower-case phrase would pass the
		// shape once capitalised.
		ok, dict, multi = casedNameShape(titleCase(v))
		return ok && dict, dict, multi
	}
	return casedNameShape(v)
}

// titleCase upper-cases the first letter of every word.
func titleCase(v string) string {
	fs := strings.Fields(v)
	for i, f := range fs {
		r, n := utf8.DecodeRuneInString(f)
		fs[i] = string(unicode.ToUpper(r)) + f[n:]
	}
	return strings.Join(fs, " ")
}

// casedNameShape is nameShape for values written with capitals.
func casedNameShape(v string) (ok, dict, multi bool) {
	if len(v) < 2 || len(v) > 80 {
		return false, false, false
	}
	for _, sep := range []byte{',', '/'} { // "Last, First"; airline "LAST/FIRST"
		if i := strings.IndexByte(v, sep); i > 0 {
			if strings.Count(v, string(sep)) > 1 {
				return false, false, false
			}
			v = strings.TrimSpace(v[i+1:]) + " " + strings.TrimSpace(v[:i])
		}
	}
	fields := strings.Fields(v)
	if len(fields) == 0 || len(fields) > 6 {
		return false, false, false
	}
	words := 0
	for _, f := range fields {
		lf := strings.ToLower(f)
		if nameParticles[lf] && f == lf {
			continue
		}
		if !nameWord(f) {
			return false, false, false
		}
		words++
		if commonNames[strings.Trim(lf, ".")] {
			dict = true
		} else {
			for _, part := range strings.FieldsFunc(lf, func(r rune) bool { return r == '-' }) {
				if commonNames[part] {
					dict = true
				}
			}
		}
	}
	if words < 1 || words > 4 {
		return false, false, false
	}
	return true, dict, words >= 2
}

// nameWord: starts with an upper-case letter; letters, hyphens, apostrophes;
// or an initial like "J.".
func nameWord(f string) bool {
	rs := []rune(f)
	if !unicode.IsUpper(rs[0]) {
		return false
	}
	if len(rs) == 2 && rs[1] == '.' {
		return true
	}
	letters := 0
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r):
			letters++
		case (r == '-' || r == '\'' || r == '’') && i > 0 && i < len(rs)-1:
		case r == '.' && i == len(rs)-1 && len(rs) <= 4: // abbreviations like "Jr."
		default:
			return false
		}
	}
	return letters >= 1
}

func detPersonName(c *column) *cand {
	strong, weak := c.hint(LabelPersonName), c.name.weakPersonName
	var dictW, multiW float64
	m := c.count(func(it item) bool {
		ok, dict, multi := nameShape(it.v)
		if ok {
			if dict {
				dictW += float64(it.c)
			}
			if multi {
				multiW += float64(it.c)
			}
		}
		return ok
	})
	if m == 0 {
		return nil
	}
	dictRate := dictW / m
	k := &cand{label: LabelPersonName, matches: m, tier: 1, prio: prioPersonal,
		what: "look like person names (1–4 capitalised words)"}
	// The names list lifts strength from 0.80 (shape only) to 0.95 once 40%
	// of the names contain a listed given name or surname.
	named := 0.8 + 0.15*min(1, dictRate/0.4)
	switch {
	case strong:
		k.strength = named
	case weak:
		if dictRate < 0.25 {
			return nil // "name" of products, cities, companies
		}
		k.strength = named
	default:
		if dictRate < 0.6 {
			return nil
		}
		k.strength = 0.75
		if multiW >= 0.5*m {
			k.strength = 0.85
		}
	}
	k.extra = append(k.extra, fmt.Sprintf("%d%% of those contain a common given name or surname", pct(dictRate)))
	return k
}

func houseNumber(f string) bool {
	f = strings.TrimRight(f, ",.;")
	if f == "" || !isDigit(f[0]) {
		return false
	}
	i := 0
	for i < len(f) && isDigit(f[i]) {
		i++
	}
	if i > 5 {
		return false
	}
	rest := f[i:]
	if rest == "" {
		return true
	}
	if (rest[0] == '-' || rest[0] == '/') && len(rest) > 1 {
		return houseNumber(rest[1:])
	}
	if len(rest) == 1 && (rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= 'A' && rest[0] <= 'Z') {
		return true
	}
	return false
}

func streetWord(f string) bool {
	lf := strings.ToLower(strings.Trim(f, ",.;#"))
	if streetWords[lf] {
		return true
	}
	lf2 := strings.ToLower(strings.Trim(f, ",;#"))
	for _, s := range streetSuffixes {
		if strings.HasSuffix(lf2, s) && len([]rune(lf2)) >= len([]rune(s))+3 {
			return true
		}
	}
	return false
}

func isStreetAddress(v string) bool {
	if len(v) < 5 || len(v) > 120 {
		return false
	}
	fields := strings.Fields(v)
	if len(fields) < 2 || len(fields) > 14 {
		return false
	}
	num, street, letters := false, false, false
	for _, f := range fields {
		if houseNumber(f) {
			num = true
			continue
		}
		if streetWord(f) {
			street = true
		}
		if hasLetter(f) {
			letters = true
		}
	}
	return num && letters && (street || prepositionStreet(fields))
}

// prepositionStreet matches streets named with a preposition and no street
// word, common in German and Dutch: Am Markt 3, Unter den Linden 77, An der
// Alster 12, Op de Berg 4 — a preposition, an optional article, capitalised
// words and the house number last.
func prepositionStreet(fields []string) bool {
	if len(fields) < 3 || len(fields) > 6 || !streetPrepositions[strings.ToLower(fields[0])] || !houseNumber(fields[len(fields)-1]) {
		return false
	}
	for _, f := range fields[1 : len(fields)-1] {
		if !streetArticles[strings.ToLower(f)] && !nameWord(f) {
			return false
		}
	}
	return true
}

var streetPrepositions = setOf(`am an im in auf zum zur unter hinter vor bei beim über aan op bij achter`)
var streetArticles = setOf(`der den dem die das de het`)

// streetName reports whether v names a street without a house number:
// Main Street, Rue de la Paix, Storgatan — two to six words, one of them a
// street word and none a digit, or one compound street name.
func streetName(v string) bool {
	fields := strings.Fields(v)
	if len(fields) < 1 || len(fields) > 6 || strings.ContainsAny(v, "0123456789@") {
		return false
	}
	if len(fields) == 1 {
		lf := strings.ToLower(v)
		return !streetWords[lf] && streetWord(v) && nameWord(v)
	}
	for _, f := range fields {
		if streetWord(f) {
			return true
		}
	}
	return false
}

// streetNameStrength is what a street without a house number proves under
// an address name: the street is known, the dwelling is not.
const streetNameStrength = 0.8

func detStreet(c *column) *cand {
	named := c.hint(LabelStreet)
	var full, bare float64
	c.count(func(it item) bool {
		switch {
		case isStreetAddress(it.v):
			full += float64(it.c)
		case named && streetName(it.v):
			bare += float64(it.c)
		}
		return false
	})
	m := full + bare
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelStreet, matches: m, strength: (0.9*full + streetNameStrength*bare) / m, tier: 1, prio: prioPersonal,
		what: "look like street addresses (house number and a street word such as street, gatan, katu, gade, straße, rue)"}
	if bare > 0 {
		k.what = "look like street addresses (a street word such as street, gatan, katu, gade, straße, rue)"
		k.extra = append(k.extra, fmt.Sprintf("%d%% of them have no house number", pct(bare/m)))
	}
	return k
}

// postalShape matches postal codes of the countries the product serves.
func postalShape(v string) bool {
	u := strings.ToUpper(v)
	// Country prefixes such as SE-, FI-, D-, DK-, NO-.
	if i := strings.IndexByte(u, '-'); i >= 1 && i <= 2 && u[0] >= 'A' && u[0] <= 'Z' {
		u = strings.TrimSpace(u[i+1:])
	}
	switch {
	case len(u) == 5 && allDigits(u): // US, DE, FI, FR, IT, ES, SE compact
		return true
	case len(u) == 10 && allDigits(u[:5]) && u[5] == '-' && allDigits(u[6:]): // ZIP+4
		return true
	case len(u) == 6 && allDigits(u[:3]) && u[3] == ' ' && allDigits(u[4:]): // SE "114 55"
		return true
	case len(u) == 4 && allDigits(u): // NO, DK, CH, AT, BE
		return true
	case len(u) == 6 && allDigits(u[:2]) && u[2] == '-' && allDigits(u[3:]): // PL
		return true
	case len(u) == 8 && allDigits(u[:4]) && u[4] == '-' && allDigits(u[5:]): // PT
		return true
	case (len(u) == 6 || len(u) == 7) && allDigits(u[:4]) && isUpperAlpha(strings.TrimSpace(u[4:])) && len(strings.TrimSpace(u[4:])) == 2: // NL
		return true
	case len(u) >= 6 && len(u) <= 7 && isCAPostal(u):
		return true
	}
	return isGBPostcode(u)
}

func isUpperAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

func isCAPostal(u string) bool {
	u = strings.ReplaceAll(u, " ", "")
	if len(u) != 6 {
		return false
	}
	for i := 0; i < 6; i++ {
		if (i%2 == 0) != (u[i] >= 'A' && u[i] <= 'Z') {
			return false
		}
		if i%2 == 1 && !isDigit(u[i]) {
			return false
		}
	}
	return true
}

// isGBPostcode: outward code A9, A99, AA9, AA99, A9A, AA9A; inward 9AA.
func isGBPostcode(u string) bool {
	u = strings.ReplaceAll(u, " ", "")
	if len(u) < 5 || len(u) > 7 {
		return false
	}
	in, out := u[len(u)-3:], u[:len(u)-3]
	if !isDigit(in[0]) || !isUpperAlpha(in[1:]) {
		return false
	}
	if !(out[0] >= 'A' && out[0] <= 'Z') {
		return false
	}
	rest := out[1:]
	if len(rest) > 0 && rest[0] >= 'A' && rest[0] <= 'Z' {
		rest = rest[1:]
	}
	if len(rest) == 0 || !isDigit(rest[0]) {
		return false
	}
	rest = rest[1:]
	return len(rest) <= 1
}

func detPostal(c *column) *cand {
	if !c.hint(LabelPostalCode) {
		return nil
	}
	m := c.count(func(it item) bool { return postalShape(it.v) })
	if m == 0 {
		return nil
	}
	return &cand{label: LabelPostalCode, matches: m, strength: 0.9, tier: 1, prio: prioPersonal,
		what: "match a national postal code format"}
}

// ---------------------------------------------------------------------------
// Demographics

func detDOB(c *column) *cand {
	if !c.hint(LabelDateOfBirth) {
		return nil
	}
	lo := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	hi := c.now.AddDate(-1, 0, 0)
	pts := c.parsedTimes()
	var m, serials float64
	for i, it := range c.items {
		t, k := pts[i].t, pts[i].k
		if k == kindDate && t.After(hi) && shortYear(it.v, t) {
			t = t.AddDate(-100, 0, 0) // 02.01.45 is 1945 for a birth date
		}
		if k == notTime {
			if st, ok := excelSerialDate(it.v); ok {
				t, k = st, kindDate
				serials += float64(it.c)
			}
		}
		if k == kindDate && !t.Before(lo) && !t.After(hi) {
			m += float64(it.c)
		}
	}
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelDateOfBirth, matches: m, strength: 0.9, tier: 1, prio: prioPersonal + 1,
		what: "are dates between 1900 and one year ago"}
	if serials >= 0.5*m {
		k.strength = 0.85 // plain integers: the name says they are dates
		k.extra = append(k.extra, "most are spreadsheet serial day numbers")
	}
	return k
}

// excelSerialDate reads a spreadsheet serial day number (days since
// 1899-12-30) of 1910 or later. Earlier serials are below 3653 and would be
// confused with years (1985).
func excelSerialDate(v string) (time.Time, bool) {
	n, ok := parseInt(v)
	if !ok || n < 3653 || n > 80000 {
		return time.Time{}, false
	}
	return time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(n)), true
}

// shortYear reports whether the value wrote t's year with two digits.
func shortYear(v string, t time.Time) bool { return !strings.Contains(v, strconv.Itoa(t.Year())) }

func detGender(c *column) *cand {
	classes := map[string]bool{}
	words := 0.0
	hint := c.hint(LabelGender)
	m := c.count(func(it item) bool {
		cl, ok := genderVocab[strings.TrimRight(it.lower, ".")]
		if !ok && hint {
			cl, ok = iso5218[it.lower] // numeric codes mean sex only under a gender name
		}
		if ok {
			classes[cl] = true
			if len(it.lower) > 1 {
				words += float64(it.c)
			}
		}
		return ok
	})
	if m == 0 {
		return nil
	}
	if !(classes["male"] && classes["female"]) && !(hint && c.n < 20) {
		return nil
	}
	k := &cand{label: LabelGender, matches: m, strength: 0.8, tier: 1, prio: prioPersonal + 1,
		what: "are gender values from a multilingual vocabulary"}
	if words >= 0.5*m {
		k.strength = 0.9
	} else {
		k.extra = append(k.extra, "mostly single-character codes, which are ambiguous without a gender column name")
	}
	return k
}

func detAge(c *column) *cand {
	// A name that qualifies age (age_group, age_band) still says age when
	// the values are bands: a band is a person's age, told less exactly.
	// Plain numbers under such a name are group codes (age_group 1 to 5).
	bandsOnly := !c.hint(LabelAge) && slices.Contains(c.name.droppedHints, LabelAge)
	if !c.hint(LabelAge) && !bandsOnly {
		return nil
	}
	distinct := 0
	var bands float64
	m := c.count(func(it item) bool {
		if n, ok := wholeNumber(it.v); ok && n >= 0 && n <= 120 && !bandsOnly {
			distinct++
			return true
		}
		if ageBand(it.lower) {
			distinct++
			bands += float64(it.c)
			return true
		}
		return false
	})
	if m == 0 || (c.n >= 20 && distinct < 3) {
		return nil
	}
	k := &cand{label: LabelAge, matches: m, strength: 0.9, tier: 1, prio: prioPersonal,
		what: "are whole numbers between 0 and 120"}
	if bands > 0 {
		k.what = "are ages or age bands between 0 and 120"
		k.strength = (0.9*(m-bands) + ageBandStrength*bands) / m
	}
	return k
}

// ageBandStrength: a band (25-34) says less than an age, and spans that
// look like bands also count other things (store hours, shoe sizes).
const ageBandStrength = 0.85

// ageBand matches the age bands of surveys and exports, lower-cased:
// 18-24, 25–34, 25 - 34, 18 to 24, 65+, 65 and over, under 18, <18.
func ageBand(lower string) bool {
	v := strings.TrimSpace(lower)
	for _, suf := range []string{"+", " and over", " and older", " or older", " years and over", " plus"} {
		if n, ok := strings.CutSuffix(v, suf); ok {
			return ageNumber(n)
		}
	}
	for _, pre := range []string{"under ", "<", "> ", ">", "< "} {
		if n, ok := strings.CutPrefix(v, pre); ok {
			return ageNumber(n)
		}
	}
	for _, sep := range []string{"-", "–", " to "} {
		if lo, hi, ok := strings.Cut(v, sep); ok {
			l, okl := parseInt(strings.TrimSpace(lo))
			h, okh := parseInt(strings.TrimSpace(hi))
			return okl && okh && l >= 0 && l < h && h <= 120
		}
	}
	return false
}

func ageNumber(s string) bool {
	n, ok := parseInt(strings.TrimSpace(s))
	return ok && n >= 0 && n <= 120
}

// parseCoordinate parses a decimal degree written with a '.' decimal point.
func parseCoordinate(s string) (float64, int, bool) {
	if strings.Count(s, ",") > 0 {
		return 0, 0, false
	}
	f, dec, ok := parseNumber(s)
	if !ok || strings.ContainsAny(s, " '") {
		return 0, 0, false
	}
	return f, dec, ok
}

// geoPair parses "lat, lon", "lat lon", "(lat, lon)", "lat;lon" and
// "POINT(lon lat)"; minDec is the minimum number of decimals required.
func geoPair(v string, minDec int) bool {
	s := strings.TrimSpace(v)
	u := strings.ToUpper(s)
	point := false
	if strings.HasPrefix(u, "POINT") {
		s = strings.TrimSpace(s[5:])
		point = true
	}
	s = strings.Trim(s, "()[] ")
	var parts []string
	switch {
	case strings.Contains(s, ","):
		parts = strings.Split(s, ",")
	case strings.Contains(s, ";"):
		parts = strings.Split(s, ";")
	default:
		parts = strings.Fields(s)
	}
	if len(parts) != 2 {
		return false
	}
	a, da, ok1 := parseCoordinate(strings.TrimSpace(parts[0]))
	b, db, ok2 := parseCoordinate(strings.TrimSpace(parts[1]))
	if !ok1 || !ok2 || da < minDec || db < minDec {
		return false
	}
	if point {
		a, b = b, a
	}
	inLat := func(x float64) bool { return x >= -90 && x <= 90 }
	inLon := func(x float64) bool { return x >= -180 && x <= 180 }
	return inLat(a) && inLon(b) || point && inLat(b) && inLon(a)
}

// decimalComma turns a single decimal comma into a point (59,3293), for
// single-coordinate columns where a comma cannot separate a pair.
func decimalComma(v string) string {
	if strings.Count(v, ",") == 1 && !strings.Contains(v, ".") {
		return strings.Replace(v, ",", ".", 1)
	}
	return v
}

// dmsPair parses a latitude and longitude in degrees, minutes and seconds:
// 59°19'46.1"N 18°04'07.3"E, 59° 19′ 46″ N, 18° 4′ 7″ E.
func dmsPair(v string) bool {
	s := dmsMarks.Replace(strings.ToUpper(v))
	i := strings.IndexAny(s, "NS")
	if i < 0 || !strings.Contains(s, "°") {
		return false
	}
	lat, ok1 := parseDMS(s[:i+1], "NS")
	lon, ok2 := parseDMS(strings.Trim(s[i+1:], " ,;"), "EW")
	return ok1 && ok2 && lat <= 90 && lon <= 180
}

var dmsMarks = strings.NewReplacer("′", "'", "’", "'", "″", "\"", "''", "\"", "º", "°")

// parseDMS parses one D°M'S"H coordinate (minutes and seconds optional) with
// its hemisphere letter among hemis, and returns its absolute value.
func parseDMS(s, hemis string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || !strings.ContainsRune(hemis, rune(s[len(s)-1])) {
		return 0, false
	}
	rest := strings.TrimSpace(s[:len(s)-1])
	total, scale := 0.0, 1.0
	for _, mark := range []string{"°", "'", "\""} {
		part, after, found := strings.Cut(rest, mark)
		if !found {
			break
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || x < 0 || scale < 1 && x >= 60 {
			return 0, false
		}
		total += x * scale
		scale /= 60
		rest = strings.TrimSpace(after)
	}
	return total, rest == "" && scale < 1
}

func detGeo(c *column) *cand {
	// Without a location name, pairs need the precision of positioned
	// devices (four decimals, about 10 m): sensor readings and measurement
	// pairs with fewer decimals fall in the same ranges.
	hint := c.hint(LabelGeo)
	minDec := 4
	if hint {
		minDec = 2
	}
	m := c.count(func(it item) bool { return geoPair(it.v, minDec) || dmsPair(it.v) })
	if m > 0 && m*2 >= float64(c.n) {
		return &cand{label: LabelGeo, matches: m, strength: 0.95, tier: 1, prio: prioPersonal,
			what: "are latitude/longitude pairs in range"}
	}
	// Single-coordinate columns named lat/lng/latitude/longitude.
	t := c.name.tokenSet
	isLat := t["lat"] || t["latitude"] || t["breddgrad"] || t["leveysaste"]
	isLon := t["lng"] || t["lon"] || t["longitude"] || t["längdgrad"] || t["pituusaste"] ||
		(t["long"] && (len(c.name.tokens) == 1 || t["geo"] || t["gps"] || t["coord"]))
	if !isLat && !isLon {
		return nil
	}
	limit := 180.0
	if isLat && !isLon {
		limit = 90
	}
	m = c.count(func(it item) bool {
		f, dec, ok := parseCoordinate(decimalComma(it.v))
		return ok && dec >= 2 && f >= -limit && f <= limit
	})
	if m == 0 {
		return nil
	}
	return &cand{label: LabelGeo, matches: m, strength: 0.9, tier: 1, prio: prioPersonal,
		what: fmt.Sprintf("are decimal degrees within ±%.0f", limit)}
}
