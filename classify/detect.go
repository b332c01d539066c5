package classify

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

type detector func(c *column) *cand

// detectors run on every column; each returns a candidate or nil. Order does
// not matter: the winner is chosen by tier, confidence and priority.
var detectors = []detector{
	detEmail, detPhone, detCard, detIBAN, detSSN, detSEPnr, detFIHetu, detNOFnr, detDKCPR, detIP,
	detPersonName, detStreet, detPostal, detDOB, detGender, detAge, detGeo, detPassword, detPasswordHash,
	detSecret, detHealth, detReligion, detEthnicity, detOrientation, detPolitical, detBiometric,
	detTradeUnion, detUUID, detMoney, detTemporal, detBoolean, detGeneric,
}

// Priorities for ties (higher wins): checksum-validated personal data first,
// then other personal data, special categories, specific non-personal labels.
const (
	prioChecksum = 90
	prioPersonal = 70
	prioSpecial  = 75
	prioSpecific = 40
	prioGeneric  = 10
)

func (c *column) hint(l string) bool { return c.name.hints[l] }

// fewDistinct weakens validator labels whose sample is one or two values
// repeated (a default or test value rather than real data).
func (c *column) fewDistinct(k *cand) *cand {
	if k != nil && c.n >= 20 && c.distinct() < 3 {
		k.strength *= 0.7
		k.extra = append(k.extra, fmt.Sprintf("only %d distinct values; looks like a default or test value", c.distinct()))
	}
	return k
}

// ---------------------------------------------------------------------------
// Contact data

func detEmail(c *column) *cand {
	m := c.count(func(it item) bool { _, ok := emailAddress(it.v); return ok })
	if m == 0 {
		return nil
	}
	return c.fewDistinct(&cand{label: LabelEmail, matches: m, strength: 1.0, tier: 1, prio: prioPersonal + 5,
		what: "are syntactically valid e-mail addresses"})
}

type phoneForm int

const (
	pfIntl  phoneForm = iota // +CC… or 00CC…
	pfTrunk                  // national format with separators and trunk prefix 0
	pfOther                  // formatted, no trunk prefix (e.g. NANP "(212) 555-0123")
	pfBare                   // digits only
)

// defaultPhoneRegions are tried, after the regions seen in +CC numbers of the
// same column, for numbers written in national format.
var defaultPhoneRegions = []string{"SE", "FI", "NO", "DK", "DE", "GB", "US", "FR"}

// nationalIDShape matches groupings used by national IDs, which are kept out
// of phone validation (libphonenumber accepts many of them for some region).
func nationalIDShape(v string) bool {
	switch len(v) {
	case 11:
		return allDigits(v[:6]) && (v[6] == '-' || v[6] == '+') && allDigits(v[7:]) ||
			allDigits(v[:3]) && v[3] == '-' && allDigits(v[4:6]) && v[6] == '-' && allDigits(v[7:])
	case 12:
		return allDigits(v[:6]) && v[6] == ' ' && allDigits(v[7:])
	case 13:
		return allDigits(v[:8]) && v[8] == '-' && allDigits(v[9:])
	}
	return false
}

// phoneShape checks that v is written like a phone number and returns its
// digits and form.
func phoneShape(v string) (digits string, form phoneForm, ok bool) {
	if len(v) < 6 || len(v) > 25 {
		return "", 0, false
	}
	b := make([]byte, 0, 16)
	seps, dots, parens := 0, 0, 0
	for i := 0; i < len(v); i++ {
		ch := v[i]
		switch {
		case isDigit(ch):
			b = append(b, ch)
		case ch == '+':
			if i != 0 {
				return "", 0, false
			}
		case ch == ' ' || ch == '-' || ch == '/':
			seps++
		case ch == '(' || ch == ')':
			seps++
			parens++
		case ch == '.':
			dots++
			seps++
		default:
			return "", 0, false
		}
	}
	if len(b) < 6 || len(b) > 17 || parens > 2 {
		return "", 0, false
	}
	if dots > 0 && dots == seps && dots != 2 && dots != 3 {
		return "", 0, false // decimals like 1234.5678
	}
	if looksLikeDateShape(v) || nationalIDShape(v) {
		return "", 0, false
	}
	if dots == 3 {
		if _, isIP := parseIP(v); isIP {
			return "", 0, false
		}
	}
	d := string(b)
	switch {
	case v[0] == '+':
		form = pfIntl
	case strings.HasPrefix(d, "00") && len(d) >= 10:
		form = pfIntl
		d = d[2:]
	case seps == 0:
		form = pfBare
	case d[0] == '0':
		form = pfTrunk
	default:
		form = pfOther
	}
	if len(d) > 15 {
		return "", 0, false
	}
	return d, form, true
}

// sequentialNumbers reports whether the digit strings are (nearly) a
// contiguous range — order numbers, invoice numbers, row ids: at least 20
// distinct values that fill at least a fifth of the range they span.
func sequentialNumbers(ds []string) bool {
	var ns []uint64
	seen := map[uint64]bool{}
	for _, d := range ds {
		if len(d) > 18 {
			continue
		}
		var x uint64
		for i := 0; i < len(d); i++ {
			x = x*10 + uint64(d[i]-'0')
		}
		if !seen[x] {
			seen[x] = true
			ns = append(ns, x)
		}
	}
	if len(ns) < 20 {
		return false
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i] < ns[j] })
	span := ns[len(ns)-1] - ns[0] + 1
	return span <= uint64(len(ns))*5
}

func detPhone(c *column) *cand {
	type shaped struct {
		it     item
		digits string
		form   phoneForm
	}
	var sh []shaped
	total := 0
	for _, it := range c.items {
		if d, f, ok := phoneShape(it.v); ok {
			sh = append(sh, shaped{it, d, f})
			total += it.c
		}
	}
	if total*2 < c.n {
		return nil
	}
	hint := c.hint(LabelPhone)
	var all []string
	for _, s := range sh {
		all = append(all, s.digits)
	}
	if sequentialNumbers(all) {
		return nil
	}
	pn := newPhoneValidator()
	// International numbers first; their regions become defaults.
	regionCount := map[string]int{}
	valid := make([]bool, len(sh))
	for i, s := range sh {
		if s.form != pfIntl {
			continue
		}
		if r, ok := pn.validIntl(s.digits); ok {
			valid[i] = true
			regionCount[r] += s.it.c
		}
	}
	var regions []string
	for r := range regionCount {
		regions = append(regions, r)
	}
	sort.Slice(regions, func(i, j int) bool {
		if regionCount[regions[i]] != regionCount[regions[j]] {
			return regionCount[regions[i]] > regionCount[regions[j]]
		}
		return regions[i] < regions[j]
	})
	for _, r := range defaultPhoneRegions {
		if regionCount[r] == 0 {
			regions = append(regions, r)
		}
	}
	var m, strengthSum float64
	bareMatches, seen := 0, 0
	for i, s := range sh {
		seen += s.it.c
		if s.form == pfIntl {
			if valid[i] {
				m += float64(s.it.c)
				strengthSum += float64(s.it.c) * 1.0
			}
			continue
		}
		if s.form == pfBare && !hint && (s.digits[0] != '0' || c.hint(LabelIdentifier)) {
			continue // unformatted digits without a phone name: order numbers, customer numbers
		}
		r, ok := pn.validNational(s.it.v, regions)
		if ok && r != regions[0] {
			// Move the region to the front: columns are usually one country.
			i := slices.Index(regions, r)
			copy(regions[1:i+1], regions[:i])
			regions[0] = r
		}
		if !ok && s.form == pfBare && hint && len(s.digits) >= 10 {
			r, ok = pn.validIntl(s.digits) // E.164 stored without '+'
		}
		if !ok {
			if seen >= 100 && m*2 < float64(seen) {
				return nil
			}
			continue
		}
		regionCount[r] += s.it.c
		w := 0.9
		switch s.form {
		case pfTrunk:
			w = 0.95
		case pfBare:
			bareMatches += s.it.c
			if !hint {
				w = 0.8
			}
		}
		m += float64(s.it.c)
		strengthSum += float64(s.it.c) * w
	}
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelPhone, matches: m, strength: strengthSum / m, tier: 1, prio: prioPersonal + 4,
		what: "are valid phone numbers (libphonenumber)"}
	var top []string
	for r := range regionCount {
		top = append(top, r)
	}
	sort.Slice(top, func(i, j int) bool {
		if regionCount[top[i]] != regionCount[top[j]] {
			return regionCount[top[i]] > regionCount[top[j]]
		}
		return top[i] < top[j]
	})
	if len(top) > 4 {
		top = top[:4]
	}
	if len(top) > 0 {
		k.extra = append(k.extra, "numbering plans: "+strings.Join(top, ", "))
	}
	if float64(bareMatches) > m/2 {
		k.extra = append(k.extra, "most numbers are unformatted digit strings, which weakens the evidence")
	}
	return c.fewDistinct(k)
}

// ---------------------------------------------------------------------------
// Financial

func detCard(c *column) *cand {
	brands := map[string]int{}
	shaped := 0
	m := c.count(func(it item) bool {
		d, ok := cardDigits(it.v)
		if !ok {
			return false
		}
		shaped += it.c
		b := cardBrand(d)
		if b == "" || !luhnValid(d) {
			return false
		}
		brands[b] += it.c
		return true
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelPaymentCard, matches: m, strength: 1.0, tier: 1, prio: prioChecksum + 2,
		what: "pass the Luhn check with an issuer prefix valid for their length"}
	if shaped > 0 && float64(shaped) > m {
		k.extra = append(k.extra, fmt.Sprintf("%d%% of 13–19 digit values fail Luhn or issuer rules (chance pass rate is about 10%%)", pct(1-m/float64(shaped))))
	}
	var bs []string
	for b := range brands {
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool {
		return brands[bs[i]] > brands[bs[j]] || brands[bs[i]] == brands[bs[j]] && bs[i] < bs[j]
	})
	if len(bs) > 3 {
		bs = bs[:3]
	}
	k.extra = append(k.extra, "card schemes: "+strings.Join(bs, ", "))
	return c.fewDistinct(k)
}

func detIBAN(c *column) *cand {
	countries := map[string]bool{}
	m := c.count(func(it item) bool {
		if validIBAN(it.v) {
			countries[normalizeIBAN(it.v)[:2]] = true
			return true
		}
		return false
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelIBAN, matches: m, strength: 1.0, tier: 1, prio: prioChecksum + 3,
		what: "are IBANs with a valid country length and mod-97 check"}
	k.extra = append(k.extra, fmt.Sprintf("%d countries", len(countries)))
	return c.fewDistinct(k)
}

// ---------------------------------------------------------------------------
// National identifiers

func detSSN(c *column) *cand {
	bare := c.hint(LabelNationalID)
	fakes := 0
	var ds []string
	m := c.count(func(it item) bool {
		d, ok := ssnDigits(it.v, bare)
		if !ok || !validSSNDigits(d) {
			return false
		}
		ds = append(ds, d)
		if knownFakeSSNs[d] {
			fakes += it.c
		}
		return true
	})
	if m == 0 || sequentialNumbers(ds) {
		return nil
	}
	k := &cand{label: LabelSSN, matches: m, strength: 0.9, tier: 1, prio: prioChecksum - 5,
		what: "are SSN-shaped with valid area, group and serial (not 000/666/9xx)"}
	if fakes > 0 {
		k.extra = append(k.extra, fmt.Sprintf("%d values are well-known example SSNs (counted as SSN-shaped)", fakes))
	}
	return c.fewDistinct(k)
}

func detSEPnr(c *column) *cand {
	m := c.count(func(it item) bool { return validSEPersonnummer(it.v, c.now) })
	if m == 0 {
		return nil
	}
	return c.fewDistinct(&cand{label: LabelSEPnr, matches: m, strength: 1.0, tier: 1, prio: prioChecksum,
		what: "are Swedish personnummer with a valid date and Luhn check digit"})
}

func detFIHetu(c *column) *cand {
	m := c.count(func(it item) bool { return validFIHETU(it.v) })
	if m == 0 {
		return nil
	}
	return c.fewDistinct(&cand{label: LabelFIHetu, matches: m, strength: 1.0, tier: 1, prio: prioChecksum,
		what: "are Finnish henkilötunnus with a valid date and check character"})
}

func detNOFnr(c *column) *cand {
	m := c.count(func(it item) bool { return validNOFodselsnummer(it.v) })
	if m == 0 {
		return nil
	}
	return c.fewDistinct(&cand{label: LabelNOFnr, matches: m, strength: 1.0, tier: 1, prio: prioChecksum,
		what: "are Norwegian fødselsnummer with valid date and both mod-11 control digits"})
}

func detDKCPR(c *column) *cand {
	bare := c.hint(LabelNationalID)
	mod11 := 0
	dates := map[string]bool{}
	var ds []string
	m := c.count(func(it item) bool {
		ok, m11 := dkCPR(it.v, bare)
		if ok {
			ds = append(ds, strings.ReplaceAll(it.v, "-", ""))
			dates[it.v[:6]] = true
			if m11 {
				mod11 += it.c
			}
		}
		return ok
	})
	if m == 0 {
		return nil
	}
	// Birth dates are diverse; invoice numbers with a date prefix are not.
	if c.distinct() >= 50 && float64(len(dates)) < 0.3*float64(c.distinct()) || sequentialNumbers(ds) {
		return nil
	}
	k := &cand{label: LabelDKCPR, matches: m, strength: 0.85, tier: 1, prio: prioChecksum - 10,
		what: "are CPR-shaped (DDMMYY-SSSS) with a valid birth date"}
	if float64(mod11) >= 0.9*m {
		k.strength = 0.95
		k.extra = append(k.extra, "they also pass the legacy mod-11 check")
	} else {
		k.extra = append(k.extra, "no checksum applies to CPR numbers issued since 2007, so only the date is validated")
	}
	return c.fewDistinct(k)
}

func detIP(c *column) *cand {
	v4, v6 := 0, 0
	m := c.count(func(it item) bool {
		a, ok := parseIP(it.v)
		if !ok {
			return false
		}
		if a.Unmap().Is4() {
			v4 += it.c
		} else {
			v6 += it.c
		}
		return true
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelIP, matches: m, strength: 0.95, tier: 1, prio: prioPersonal + 3,
		what: "parse as IP addresses"}
	k.extra = append(k.extra, fmt.Sprintf("%d IPv4, %d IPv6", v4, v6))
	return c.fewDistinct(k)
}

// ---------------------------------------------------------------------------
// Person names and addresses

// nameShape reports whether v looks like a person name (1–4 capitalised
// alphabetic words, allowing particles, hyphens, apostrophes, initials and
// "Last, First") and whether a word is in the common-names list.
func nameShape(v string) (ok, dict, multi bool) {
	if len(v) < 2 || len(v) > 80 {
		return false, false, false
	}
	if i := strings.IndexByte(v, ','); i > 0 {
		if strings.Count(v, ",") > 1 {
			return false, false, false
		}
		v = strings.TrimSpace(v[i+1:]) + " " + strings.TrimSpace(v[:i])
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
	return num && street && letters
}

func detStreet(c *column) *cand {
	m := c.count(func(it item) bool { return isStreetAddress(it.v) })
	if m == 0 {
		return nil
	}
	return &cand{label: LabelStreet, matches: m, strength: 0.9, tier: 1, prio: prioPersonal,
		what: "look like street addresses (house number and a street word such as street, gatan, katu, gade, straße, rue)"}
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
	var m float64
	for i, it := range c.items {
		if pts[i].k == kindDate && !pts[i].t.Before(lo) && !pts[i].t.After(hi) {
			m += float64(it.c)
		}
	}
	if m == 0 {
		return nil
	}
	return &cand{label: LabelDateOfBirth, matches: m, strength: 0.9, tier: 1, prio: prioPersonal + 1,
		what: "are dates between 1900 and one year ago"}
}

func detGender(c *column) *cand {
	classes := map[string]bool{}
	words := 0.0
	m := c.count(func(it item) bool {
		cl, ok := genderVocab[strings.TrimRight(it.lower, ".")]
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
	hint := c.hint(LabelGender)
	if !(classes["male"] && classes["female"]) && !(hint && c.n < 20) {
		return nil
	}
	k := &cand{label: LabelGender, matches: m, strength: 0.8, tier: 1, prio: prioPersonal + 1,
		what: "are gender values from a multilingual vocabulary"}
	if words >= 0.5*m {
		k.strength = 0.9
	} else {
		k.extra = append(k.extra, "mostly single-letter codes, which are ambiguous without a gender column name")
	}
	return k
}

func detAge(c *column) *cand {
	if !c.hint(LabelAge) {
		return nil
	}
	distinct := 0
	m := c.count(func(it item) bool {
		n, ok := parseInt(it.v)
		if ok && n >= 0 && n <= 120 {
			distinct++
			return true
		}
		return false
	})
	if m == 0 || (c.n >= 20 && distinct < 3) {
		return nil
	}
	return &cand{label: LabelAge, matches: m, strength: 0.9, tier: 1, prio: prioPersonal,
		what: "are whole numbers between 0 and 120"}
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

func detGeo(c *column) *cand {
	hint := c.hint(LabelGeo)
	minDec := 3
	if hint {
		minDec = 2
	}
	m := c.count(func(it item) bool { return geoPair(it.v, minDec) })
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
		f, dec, ok := parseCoordinate(it.v)
		return ok && dec >= 2 && f >= -limit && f <= limit
	})
	if m == 0 {
		return nil
	}
	return &cand{label: LabelGeo, matches: m, strength: 0.9, tier: 1, prio: prioPersonal,
		what: fmt.Sprintf("are decimal degrees within ±%.0f", limit)}
}

// ---------------------------------------------------------------------------
// Credentials

// selfIdentifyingHash recognises password hash formats that carry their
// algorithm: bcrypt, argon2, scrypt, sha-crypt, yescrypt, PBKDF2 (Django,
// passlib) and LDAP {SSHA}.
func selfIdentifyingHash(v string) bool {
	switch {
	case len(v) == 60 && (strings.HasPrefix(v, "$2a$") || strings.HasPrefix(v, "$2b$") || strings.HasPrefix(v, "$2y$") || strings.HasPrefix(v, "$2x$")):
		return isDigit(v[4]) && isDigit(v[5]) && v[6] == '$' && isTokenChars(v[7:])
	case strings.HasPrefix(v, "$argon2id$"), strings.HasPrefix(v, "$argon2i$"), strings.HasPrefix(v, "$argon2d$"):
		return strings.Count(v, "$") >= 4
	case strings.HasPrefix(v, "$scrypt$"), strings.HasPrefix(v, "$7$"), strings.HasPrefix(v, "$y$"),
		strings.HasPrefix(v, "$5$"), strings.HasPrefix(v, "$6$"), strings.HasPrefix(v, "$1$"),
		strings.HasPrefix(v, "$pbkdf2"):
		return strings.Count(v, "$") >= 3 && len(v) >= 20
	case strings.HasPrefix(v, "pbkdf2_sha256$"), strings.HasPrefix(v, "pbkdf2_sha1$"), strings.HasPrefix(v, "argon2$"), strings.HasPrefix(v, "bcrypt_sha256$"):
		return strings.Count(v, "$") >= 2
	case strings.HasPrefix(v, "{SSHA}"), strings.HasPrefix(v, "{SSHA256}"), strings.HasPrefix(v, "{SSHA512}"), strings.HasPrefix(v, "{SHA}"), strings.HasPrefix(v, "{CRYPT}"):
		return len(v) > 12
	}
	return false
}

func isHexDigest(v string) bool {
	switch len(v) {
	case 32, 40, 64, 128:
		return isHex(v)
	}
	return false
}

func detPasswordHash(c *column) *cand {
	pwHint := c.hint(LabelPassword) || c.hint(LabelPasswordHash)
	selfID := 0.0
	m := c.count(func(it item) bool {
		if selfIdentifyingHash(it.v) {
			selfID += float64(it.c)
			return true
		}
		return pwHint && isHexDigest(it.v)
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelPasswordHash, matches: m, strength: 0.9, tier: 1, prio: prioPersonal + 2,
		what: "are password hashes"}
	if selfID >= 0.5*m {
		k.strength = 0.95
		k.extra = append(k.extra, "hash formats name their algorithm (bcrypt, argon2, scrypt, PBKDF2, sha-crypt)")
	} else {
		k.extra = append(k.extra, "hex digests in a column named like a password")
	}
	return k
}

func detPassword(c *column) *cand {
	if !c.hint(LabelPassword) {
		return nil
	}
	pts := c.parsedTimes()
	m := 0.0
	for i, it := range c.items {
		v := it.v
		if len(v) < 4 || len(v) > 128 || selfIdentifyingHash(v) || isHexDigest(v) || pts[i].k != notTime {
			continue
		}
		if shannonEntropy(v) < 1.0 {
			continue // masked ("********") or placeholder values
		}
		if _, isBool := booleanVocab[it.lower]; isBool {
			continue
		}
		if strings.Count(v, " ") > 5 || strings.ContainsAny(v, "\n\t") {
			continue
		}
		m += float64(it.c)
	}
	if m == 0 {
		return nil
	}
	return &cand{label: LabelPassword, matches: m, strength: 0.9, tier: 1, prio: prioPersonal + 1,
		what: "look like plaintext passwords (not hashes)"}
}

// secretPrefixes are issuer prefixes of API keys and tokens.
var secretPrefixes = []struct {
	prefix, what string
	minLen       int
}{
	{"sk_live_", "Stripe", 20}, {"sk_test_", "Stripe", 20}, {"rk_live_", "Stripe", 20}, {"rk_test_", "Stripe", 20},
	{"pk_live_", "Stripe", 20}, {"pk_test_", "Stripe", 20}, {"whsec_", "Stripe", 20},
	{"AKIA", "AWS", 20}, {"ASIA", "AWS", 20},
	{"ghp_", "GitHub", 36}, {"gho_", "GitHub", 36}, {"ghu_", "GitHub", 36}, {"ghs_", "GitHub", 36},
	{"ghr_", "GitHub", 36}, {"github_pat_", "GitHub", 40},
	{"xoxb-", "Slack", 20}, {"xoxp-", "Slack", 20}, {"xoxa-", "Slack", 20}, {"xoxr-", "Slack", 20}, {"xoxs-", "Slack", 20},
	{"glpat-", "GitLab", 24}, {"AIza", "Google", 39}, {"sk-", "OpenAI/Anthropic", 30}, {"SG.", "SendGrid", 60},
	{"npm_", "npm", 40}, {"hf_", "Hugging Face", 30}, {"shpat_", "Shopify", 38}, {"shpss_", "Shopify", 38},
	{"dop_v1_", "DigitalOcean", 40}, {"pypi-", "PyPI", 50},
}

func secretPrefix(v string) (string, bool) {
	for _, p := range secretPrefixes {
		if len(v) >= p.minLen && strings.HasPrefix(v, p.prefix) && isTokenChars(v[len(p.prefix):]) && shannonEntropy(v[len(p.prefix):]) >= 3.0 {
			if p.prefix == "AKIA" || p.prefix == "ASIA" {
				if len(v) != 20 || !isUpperAlnum(v) {
					continue
				}
			}
			return p.what, true
		}
	}
	if strings.HasPrefix(v, "eyJ") && strings.Count(v, ".") == 2 && len(v) > 30 && isTokenChars(v) {
		return "JWT", true
	}
	if strings.HasPrefix(v, "-----BEGIN") && strings.Contains(v, "PRIVATE KEY") {
		return "private key", true
	}
	return "", false
}

func isUpperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(isDigit(s[i]) || s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}

func detSecret(c *column) *cand {
	hint := c.hint(LabelSecret)
	kinds := map[string]bool{}
	prefixed := 0.0
	m := c.count(func(it item) bool {
		if w, ok := secretPrefix(it.v); ok {
			kinds[w] = true
			prefixed += float64(it.c)
			return true
		}
		return hint && len(it.v) >= 16 && len(it.v) <= 512 && isTokenChars(it.v) && shannonEntropy(it.v) >= 3.0
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelSecret, matches: m, strength: 0.9, tier: 1, prio: prioPersonal + 2,
		what: "are high-entropy secrets or API keys"}
	if prefixed >= 0.5*m {
		k.strength = 0.95
		var ks []string
		for w := range kinds {
			ks = append(ks, w)
		}
		sort.Strings(ks)
		k.extra = append(k.extra, "known key prefixes: "+strings.Join(ks, ", "))
	}
	return k
}

// ---------------------------------------------------------------------------
// Special categories (Art. 9 GDPR)

// neutralAnswers are survey answers that fit any special-category column.
var neutralAnswers = setOf(`none other unknown prefer_not_to_say prefer_not_to_answer not_stated declined
no_religion not_known n/a no_answer rather_not_say ingen annan muu ei_mitään keine sonstige aucune autre`)

// detVocab matches values against a vocabulary. With a name hint, p counts
// vocabulary and neutral answers and needs ≥2 distinct vocabulary terms;
// without one (only when valueOnly) it needs ≥3 distinct terms.
func detVocab(c *column, label string, vocab map[string]bool, valueOnly bool, what string) *cand {
	hint := c.hint(label)
	if !hint && !valueOnly {
		return nil
	}
	distinct := 0
	m := c.count(func(it item) bool {
		v := strings.Join(strings.Fields(strings.Trim(it.lower, ".")), " ")
		if vocab[v] {
			distinct++
			return true
		}
		return neutralAnswers[v]
	})
	need := 2
	if !hint {
		need = 3
	}
	if m == 0 || distinct < need {
		return nil
	}
	return &cand{label: label, matches: m, strength: 0.85, tier: 1, prio: prioSpecial, what: what}
}

func detReligion(c *column) *cand {
	return detVocab(c, LabelReligion, religionVocab, true, "are religions or beliefs")
}

func detEthnicity(c *column) *cand {
	return detVocab(c, LabelEthnicity, ethnicityVocab, false, "are ethnic or racial origins")
}

func detOrientation(c *column) *cand {
	return detVocab(c, LabelOrientation, orientationVocab, true, "are sexual orientations")
}

func detPolitical(c *column) *cand {
	return detVocab(c, LabelPolitical, politicalVocab, false, "are political parties or leanings")
}

// isICD10 matches ICD-10 codes such as E11, E11.9, J45.909, F32A.
func isICD10(v string) bool {
	u := strings.ToUpper(v)
	if len(u) < 3 || len(u) > 8 || u[0] < 'A' || u[0] > 'Z' {
		return false
	}
	if !isDigit(u[1]) || !(isDigit(u[2]) || u[2] == 'A' || u[2] == 'B') {
		return false
	}
	rest := u[3:]
	if strings.HasPrefix(rest, ".") {
		rest = rest[1:]
		if rest == "" {
			return false
		}
	}
	if len(rest) > 4 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !(isDigit(rest[i]) || rest[i] >= 'A' && rest[i] <= 'Z') {
			return false
		}
	}
	return true
}

func detHealth(c *column) *cand {
	if !c.hint(LabelHealth) {
		return nil
	}
	codes, words := 0.0, 0
	m := c.count(func(it item) bool {
		first := it.v
		if f := strings.Fields(it.v); len(f) > 0 {
			first = strings.TrimRight(f[0], ":,-")
		}
		if isICD10(first) {
			codes += float64(it.c)
			return true
		}
		v := strings.Join(strings.Fields(strings.Trim(it.lower, ".")), " ")
		if healthVocab[v] {
			words++
			return true
		}
		return neutralAnswers[v]
	})
	if m == 0 || (codes == 0 && words < 2) {
		return nil
	}
	k := &cand{label: LabelHealth, matches: m, strength: 0.85, tier: 1, prio: prioSpecial,
		what: "are diagnoses (ICD-10 codes or condition names)"}
	if codes >= 0.5*m {
		k.strength = 0.9
	}
	return k
}

func biometricValue(v string) bool {
	s := strings.Trim(v, "[]{}() ")
	if parts := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }); len(parts) >= 8 {
		for _, p := range parts {
			if _, _, ok := parseNumber(p); !ok {
				return false
			}
		}
		return true
	}
	if len(v) >= 40 && isTokenChars(v) && shannonEntropy(v) >= 3.5 {
		return true
	}
	return len(v) >= 64 && isHex(v)
}

func detBiometric(c *column) *cand {
	if !c.hint(LabelBiometric) {
		return nil
	}
	m := c.count(func(it item) bool { return biometricValue(it.v) })
	if m == 0 {
		return nil
	}
	return &cand{label: LabelBiometric, matches: m, strength: 0.85, tier: 1, prio: prioSpecial,
		what: "are encoded templates or embedding vectors"}
}

func unionName(lower string) bool {
	words := strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '-' })
	for _, p := range unionNameParts {
		if len(p) >= 5 {
			if strings.Contains(lower, p) {
				return true
			}
			continue
		}
		for _, w := range words {
			if w == p {
				return true
			}
		}
	}
	return false
}

func detTradeUnion(c *column) *cand {
	if !c.hint(LabelTradeUnion) {
		return nil
	}
	names, bools := 0.0, 0.0
	m := c.count(func(it item) bool {
		if _, ok := booleanVocab[it.lower]; ok {
			bools += float64(it.c)
			return true
		}
		if unionName(it.lower) {
			names += float64(it.c)
			return true
		}
		return neutralAnswers[it.lower]
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelTradeUnion, matches: m, strength: 0.85, tier: 1, prio: prioSpecial,
		what: "are union names or membership flags"}
	if bools >= 0.5*m {
		k.strength = 0.9
		k.what = "are membership flags in a column named after trade unions"
	}
	return k
}

// ---------------------------------------------------------------------------
// Non-personal specific labels

func detUUID(c *column) *cand {
	m := c.count(func(it item) bool { return isUUID(it.v) })
	if m == 0 {
		return nil
	}
	return &cand{label: LabelIdentifier, matches: m, strength: 0.95, tier: 1, prio: prioSpecific,
		what: "are UUIDs"}
}

func detMoney(c *column) *cand {
	hint := c.hint(LabelMoney)
	withCur, withDec, numeric, maxDec := 0.0, 0.0, 0.0, 0
	c.count(func(it item) bool {
		s, cur := stripCurrency(it.v)
		_, dec, ok := parseNumber(s)
		if !ok {
			return false
		}
		if cur {
			withCur += float64(it.c)
		}
		numeric += float64(it.c)
		if dec > 0 {
			withDec += float64(it.c)
		}
		if dec > maxDec {
			maxDec = dec
		}
		return true
	})
	switch {
	case withCur >= 0.5*numeric && withCur > 0:
		return &cand{label: LabelMoney, matches: numeric, strength: 0.95, tier: 1, prio: prioSpecific,
			what: "are amounts, most with a currency symbol or code"}
	case hint && numeric > 0 && maxDec <= 2 && withDec >= 0.1*numeric:
		return &cand{label: LabelMoney, matches: numeric, strength: 0.85, tier: 1, prio: prioSpecific,
			what: "are decimal amounts with at most two decimals"}
	}
	return nil
}

func detTemporal(c *column) *cand {
	pts := c.parsedTimes()
	var dates, dts float64
	for i, it := range c.items {
		switch pts[i].k {
		case kindDate:
			dates += float64(it.c)
		case kindDateTime:
			dts += float64(it.c)
		}
	}
	if dates+dts > 0 {
		k := &cand{label: LabelDate, matches: dates + dts, strength: 0.95, tier: 1, prio: prioSpecific,
			what: "parse as dates"}
		if dts > dates {
			k.label, k.what = LabelDatetime, "parse as timestamps"
		}
		return k
	}
	// Unix epochs in a column named like a timestamp.
	if c.hint(LabelDatetime) {
		m := c.count(func(it item) bool {
			n, ok := parseInt(it.v)
			return ok && (n >= 946684800 && n <= 4102444800 || n >= 946684800000 && n <= 4102444800000)
		})
		if m > 0 {
			return &cand{label: LabelDatetime, matches: m, strength: 0.85, tier: 1, prio: prioSpecific,
				what: "are Unix timestamps between 2000 and 2100"}
		}
	}
	return nil
}

func detBoolean(c *column) *cand {
	var t, f bool
	m := c.count(func(it item) bool {
		b, ok := booleanVocab[it.lower]
		if ok {
			if b {
				t = true
			} else {
				f = true
			}
		}
		return ok
	})
	if m == 0 || !(t && f) && !c.hint(LabelBoolean) {
		return nil
	}
	return &cand{label: LabelBoolean, matches: m, strength: 0.95, tier: 1, prio: prioSpecific + 1,
		what: "are boolean values"}
}

// detGeneric proposes the fallback labels: free_text, identifier, number,
// category. Only the most fitting one is returned.
func detGeneric(c *column) *cand {
	var text, numeric, integers, tokenLike, mentionsEmail float64
	sameLen := true
	firstLen := -1
	var intDigits []string
	for _, it := range c.items {
		w := float64(it.c)
		if wc := wordCount(it.v); wc >= 4 || (wc >= 3 && len(it.v) >= 30) {
			text += w
			if strings.Contains(it.v, "@") {
				for _, f := range strings.Fields(it.v) {
					if _, ok := emailAddress(strings.Trim(f, ".,;:()<>\"'")); ok {
						mentionsEmail += w
						break
					}
				}
			}
		}
		if _, _, ok := parseNumber(it.v); ok {
			numeric += w
		}
		if n, ok := parseInt(it.v); ok {
			integers += w
			if n >= 0 {
				intDigits = append(intDigits, it.v)
			}
		}
		if len(it.v) <= 64 && !strings.ContainsAny(it.v, " \t\n") {
			tokenLike += w
		}
		if firstLen < 0 {
			firstLen = len(it.v)
		} else if len(it.v) != firstLen {
			sameLen = false
		}
	}
	n := float64(c.n)
	distinctRatio := float64(c.distinct()) / n
	idHint := c.hint(LabelIdentifier)
	few := c.distinct() <= 50 && (c.n >= 10 && float64(c.distinct()) <= n/5 || c.n < 10 && float64(c.distinct()) <= n/2)

	switch {
	case text >= 0.6*n:
		k := &cand{label: LabelFreeText, matches: text, strength: 0.9, tier: 2, prio: prioGeneric,
			what: "are multi-word text", minShare: 0.6}
		if mentionsEmail > 0 {
			k.extra = append(k.extra, fmt.Sprintf("%d%% of values mention an e-mail address inside text; the values themselves are not addresses", pct(mentionsEmail/n)))
		}
		return k
	case integers >= 0.85*n && (idHint && distinctRatio >= 0.3 || distinctRatio >= 0.9 && (sequentialNumbers(intDigits) || sameLen && firstLen >= 4)):
		k := &cand{label: LabelIdentifier, matches: integers, strength: 0.85, tier: 2, prio: prioGeneric,
			what: "are integer identifiers"}
		if sequentialNumbers(intDigits) {
			k.extra = append(k.extra, "values form a near-contiguous sequence")
		} else if sameLen && distinctRatio >= 0.9 {
			k.extra = append(k.extra, "values are unique and of equal length")
		}
		return k
	case numeric >= 0.85*n:
		if few && !c.hint(LabelNumber) && integers >= 0.85*n && c.distinct() <= 12 {
			return &cand{label: LabelCategory, matches: numeric, strength: 0.8, tier: 2, prio: prioGeneric,
				what: fmt.Sprintf("are one of %d repeated numeric codes", c.distinct())}
		}
		return &cand{label: LabelNumber, matches: numeric, strength: 0.9, tier: 2, prio: prioGeneric,
			what: "are numbers"}
	case few:
		return &cand{label: LabelCategory, matches: n, strength: 0.85, tier: 2, prio: prioGeneric,
			what: fmt.Sprintf("are one of %d distinct repeated values", c.distinct())}
	case tokenLike >= 0.85*n && (distinctRatio >= 0.9 || idHint && distinctRatio >= 0.3):
		return &cand{label: LabelIdentifier, matches: tokenLike, strength: 0.85, tier: 2, prio: prioGeneric,
			what: "are unique-ish codes without spaces"}
	}
	return nil
}
