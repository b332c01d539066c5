package classify

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

type detector func(c *column) *cand

// detectors run on every column; each returns a candidate or nil. Order does
// not matter: the winner is chosen by tier, confidence and priority.
var detectors = []detector{
	detEmail, detPhone, detCard, detIBAN, detSSN, detSEPnr, detFIHetu, detNOFnr, detDKCPR, detIP,
	detPersonName, detStreet, detPostal, detDOB, detGender, detAge, detGeo, detPassword, detPasswordHash,
	detSecret, detHealth, detReligion, detEthnicity, detOrientation, detPolitical, detBiometric,
	detTradeUnion, detVIN, detPassport, detDriverLicense, detBankAccount, detMAC, detUsername, detURL,
	detUUID, detMoney, detTemporal, detBoolean, detGeneric,
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
	m := c.count(func(it item) bool { return emailList(it.v) })
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
	case 12: // DDMMYY IIIKK, but only when the control digits hold: 098765 43210 is an Indian mobile
		return v[6] == ' ' && validNOFodselsnummer(v)
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
	if dots > 0 && dots == seps && dottedNumber(v) {
		return "", 0, false // decimals like 1234.5678, thousands like 1.234.567
	}
	if seps > 0 && lastGroupLen(v) == 1 {
		return "", 0, false // a check digit after a dash (1234567-8): business ids, not phones
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

// dottedNumber reports whether v, whose only separators are dots, reads as
// a number rather than a phone number written with dots (06.12.34.56.78,
// 212.555.0123): one dot is a decimal point, and dots that split the digits
// into thousands groups are thousands separators.
func dottedNumber(v string) bool {
	groups := strings.Split(v, ".")
	if len(groups) == 2 {
		return true
	}
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// lastGroupLen is the number of characters after the last separator.
func lastGroupLen(v string) int {
	return len(v) - 1 - strings.LastIndexAny(v, " -/.()")
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
		v      string // the number without labels and extension
		digits string
		form   phoneForm
	}
	var sh []shaped
	total := 0
	for _, it := range c.items {
		v := stripPhoneDecorations(it.v)
		if d, f, ok := phoneShape(v); ok {
			sh = append(sh, shaped{it, v, d, f})
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
	bareMatches, unplanned, seen := 0, 0, 0
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
		r, ok := pn.validNational(s.v, s.digits, regions)
		if ok && r != regions[0] {
			// Move the region to the front: columns are usually one country.
			i := slices.Index(regions, r)
			copy(regions[1:i+1], regions[:i])
			regions[0] = r
		}
		if !ok && s.form != pfTrunk && hint && len(s.digits) >= 10 {
			r, ok = pn.validIntl(s.digits) // international, the '+' lost: 46701234567, 46 70 123 45 67
		}
		w := 0.9
		if !ok && hint && s.form != pfBare && groupedPhone(s.v) {
			// Written like a phone number under a phone name, but in no
			// numbering plan: fictional 555 numbers, unassigned ranges.
			ok, w, r = true, groupedPhoneStrength, ""
		}
		if !ok {
			if seen >= 100 && m*2 < float64(seen) {
				return nil
			}
			continue
		}
		if r != "" {
			regionCount[r] += s.it.c
		}
		switch {
		case r == "":
			unplanned += s.it.c
		case s.form == pfTrunk:
			w = 0.95
		case s.form == pfBare:
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
	if unplanned > 0 {
		k.extra = append(k.extra, fmt.Sprintf("%d%% are written like phone numbers but fit no numbering plan (fictional or unassigned)", pct(float64(unplanned)/m)))
	}
	if float64(bareMatches) > m/2 {
		k.extra = append(k.extra, "most numbers are unformatted digit strings, which weakens the evidence")
	}
	return c.fewDistinct(k)
}

// ---------------------------------------------------------------------------
// Financial

// cardIssuerOnlyStrength is what a card-length number with a valid issuer
// prefix but a failing Luhn check proves under a card name: test data and
// made-up numbers are written that way, real PANs never are.
const cardIssuerOnlyStrength = 0.8

func detCard(c *column) *cand {
	brands, failBrands := map[string]int{}, map[string]int{}
	shaped, issuerOnly := 0, 0.0
	var issuerDigits []string
	m := c.count(func(it item) bool {
		d, ok := cardDigits(it.v)
		if !ok {
			return false
		}
		shaped += it.c
		b := cardBrand(d)
		if b == "" {
			return false
		}
		if !luhnValid(d) {
			issuerOnly += float64(it.c)
			issuerDigits = append(issuerDigits, d)
			failBrands[b] += it.c
			return false
		}
		brands[b] += it.c
		return true
	})
	k := &cand{label: LabelPaymentCard, matches: m, strength: 1.0, tier: 1, prio: prioChecksum + 2,
		what: "pass the Luhn check with an issuer prefix valid for their length"}
	// Only the name may turn Luhn failures into card numbers: without it,
	// 16-digit codes starting with 4 or 5 are anything.
	if c.hint(LabelPaymentCard) && issuerOnly > 0 && !sequentialNumbers(issuerDigits) {
		k.strength = (m + issuerOnly*cardIssuerOnlyStrength) / (m + issuerOnly)
		k.matches = m + issuerOnly
		k.what = "have a card length and an issuer prefix valid for it"
		k.extra = append(k.extra, fmt.Sprintf("%d%% of them fail the Luhn check, as test and made-up card numbers do", pct(issuerOnly/k.matches)))
		for b, n := range failBrands {
			brands[b] += n
		}
	} else if shaped > 0 && float64(shaped) > m {
		k.extra = append(k.extra, fmt.Sprintf("%d%% of 13–19 digit values fail Luhn or issuer rules (chance pass rate is about 10%%)", pct(1-m/float64(shaped))))
	}
	if k.matches == 0 {
		return nil
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
	dates, days, years := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var ds []string
	m := c.count(func(it item) bool {
		ok, m11 := dkCPR(it.v, bare)
		if ok {
			ds = append(ds, strings.ReplaceAll(it.v, "-", ""))
			dates[it.v[:6]] = true
			days[it.v[:2]], years[it.v[4:6]] = true, true
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
	if !birthDateSpread(len(dates), len(days), len(years)) {
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

// birthDateSpread reports whether the distinct dates, days of month and
// years of a date-only ID column spread the way a population's birth dates
// do. Thirty random birthdays fall on about 20 different days of the month
// and, over a few decades, on many years; batch numbers written YYMMDD-NNNN
// and read as DDMMYY put every "day" on one of two or three recent years
// and every "year" on a day of the month.
func birthDateSpread(dates, days, years int) bool {
	if dates < 30 {
		return true // too few to judge
	}
	return days >= 10 && years >= 5
}

func detIP(c *column) *cand {
	v4, v6, versionLike := 0, 0, 0
	m := c.count(func(it item) bool {
		a, ok := parseIP(it.v)
		if !ok {
			return false
		}
		if a.Unmap().Is4() {
			v4 += it.c
			if a.Unmap().As4()[0] < 10 {
				versionLike += it.c
			}
		} else {
			v6 += it.c
		}
		return true
	})
	// Four-part version numbers (1.0.2.3, 2.1.0.7) parse as IPv4, but
	// addresses below 10.0.0.0 are a sliver of real traffic.
	if m == 0 || versionLike*2 > v4 && v4 > v6 {
		return nil
	}
	k := &cand{label: LabelIP, matches: m, strength: 0.95, tier: 1, prio: prioPersonal + 3,
		what: "parse as IP addresses"}
	k.extra = append(k.extra, fmt.Sprintf("%d IPv4, %d IPv6", v4, v6))
	return c.fewDistinct(k)
}
