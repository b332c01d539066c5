// Package classify tells which columns of a data set hold personal data.
//
// Column looks at a column's name and a sample of its non-null values and
// returns a label (email, phone, national_id_se_personnummer, …, or a
// non-personal label such as identifier or money), the GDPR category of that
// label, a confidence and short human-readable evidence.
//
// # Principles
//
//   - Values decide, names help. A label needs value evidence: a column named
//     "email" whose values are not e-mail addresses is not email, and a column
//     of valid addresses named "x" is email. Some labels are inherently
//     ambiguous from values alone (age, postal_code, password, date_of_birth,
//     passport_number, driver_license, bank_account, username, most special
//     categories); those additionally require a name hint, and the values
//     must still fit.
//   - Validators outrank patterns: checksums (Luhn, IBAN mod-97, national-ID
//     control digits) and libphonenumber give more strength than shape
//     patterns, which give more than vocabularies.
//   - Hard negatives stay quiet: unformatted digit strings are not phone
//     numbers without a phone name (order numbers), sequential numbers are
//     never phones, a number written without the trunk prefix its country
//     uses (1234567-8 is no Swedish number) or ending in a lone check digit
//     is not a phone, cards need 13–19 digits, an issuer prefix valid for
//     that length and a high Luhn pass rate (random digits pass 10% of the
//     time), date-only IDs (Danish CPR) need birth dates spread over days
//     and years (not YYMMDD batch numbers), four-part versions below
//     10.0.0.0 are not IP addresses, coordinate pairs need four decimals
//     without a location name (sensor readings), plaintext passwords must be
//     mostly distinct (PASS/FAIL is no password), free text that mentions an
//     address is free_text (the share of values that are addresses counts,
//     not values containing one).
//   - Names are read like names. Words that qualify personal data after it
//     (email_verified, phone_type, age_group) turn the hint off (but age
//     bands under age_group are still age); before it
//     they describe the data (verified_email, known_conditions), and
//     compounds name the data itself (blood_type, ethnic_group). Identifier
//     words count at the head of the name only (order_id, but not
//     invoice_age_days or code_postal), and an identifier name does not
//     contradict a national ID, which is one. A person word as the head
//     ("patient", "holder") is a weak person-name hint, like bare "name".
//
// # Confidence
//
// For the winning label, with n the number of non-blank sample values (the
// sample holds no nulls, and so no null tokens: the profile counts them as
// nulls) and m the (count-weighted) number that pass the label's
// validator or pattern:
//
//	p          = m / n                                  match share
//	base       = Wilson lower bound of p (95%, z = 1.96) sample-size adjustment
//	confidence = clamp(base × strength + name, 0, 1)
//
// strength expresses how much a match proves: 1.0 for checksum and library
// validators (Luhn + IIN, IBAN, SE/FI/NO national IDs, e-mail syntax,
// libphonenumber on +CC numbers; national phone formats 0.9–0.95 and
// unformatted digits 0.8); 0.95 for self-identifying formats (bcrypt/argon2
// hashes, key prefixes, UUIDs, IP addresses, dates, currency amounts); about
// 0.9 for structural patterns (US SSN rules, addresses, postal codes, birth
// dates, coordinates, blood types and pressures; 0.85 for age bands); 1.0
// for VINs whose ISO 3779 check digit holds; 0.95 for MAC addresses and URLs;
// 0.85 for the name-bound shapes of passport, driver's licence and bank
// account numbers and usernames; 0.8 for values a name vouches for though
// they fall short of the validator — card-length numbers with an issuer
// prefix that fail Luhn (test data) under a card name, VINs failing the
// check digit (optional outside North America) under a VIN name, numbers in
// national phone groupings that no numbering plan assigns (fictional 555
// numbers) under a phone name, and street names without a house number under
// an address name; 0.85 for the date-only
// Danish CPR check (0.95 when the legacy mod-11 also holds), for
// vocabularies (special categories, membership flags), and for birth dates
// written as spreadsheet serial day numbers; gender 0.9 for words and 0.8 for
// one-character or ISO 5218 codes; person names 0.80–0.95 with a name hint
// depending on how many hit the embedded names list, 0.75–0.85 without one.
// A column whose sample is one or two distinct values repeated gets
// 0.7 × strength (a default or test value). name is +0.10 when the column
// name agrees with the label (same family), −0.15 when it names a different
// kind of personal data, an identifier (except for labels that are
// identifiers themselves: national IDs, VINs, passport, licence and bank
// account numbers), a boolean or money, and 0 otherwise.
//
// The Wilson bound makes small samples count less: a perfect match over 10
// values gives base 0.72, over 50 values 0.93, over 1000 values 0.996; a 90%
// match over 200 values gives 0.85. A label is only assigned when p ≥ 0.85,
// or p ≥ 0.70 when the name agrees, so up to ~15% junk is tolerated. These are
// heuristic probabilities tuned so that 0.8 — the product's alert threshold
// (IsPersonal) — is reached by clean columns of a few dozen values or more,
// and not by a single weak signal. The labelled corpora of packages
// evaluation/columns and evaluation/realworld (make eval) measure labels,
// false positives and calibration against the product's targets.
//
// Column is safe for concurrent use.
package classify

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// GDPRCategory is the GDPR class of a label.
type GDPRCategory string

const (
	CategoryNone     GDPRCategory = "none"
	CategoryPersonal GDPRCategory = "personal"
	CategorySpecial  GDPRCategory = "special_category"
)

// Result is the classification of one column.
type Result struct {
	Label      string       `json:"label"`
	Category   GDPRCategory `json:"gdpr_category"`
	Confidence float64      `json:"confidence"` // calibrated probability the label is right, 0..1
	Evidence   []string     `json:"evidence"`   // short human reasons; never raw values
	// Conformance measures the sample against the label's validator, for
	// the quality checks; nil when the label has none. Never serialised: it
	// holds sampled values.
	Conformance *Conformance `json:"-"`
}

// AlertThreshold is the confidence from which the product raises a
// personal-data alert.
const AlertThreshold = 0.8

// Labels.
const (
	LabelEmail        = "email"
	LabelPhone        = "phone"
	LabelPaymentCard  = "payment_card"
	LabelIBAN         = "iban"
	LabelNationalID   = "national_id" // name-hint family only; results carry a subtype
	LabelSSN          = "national_id_us_ssn"
	LabelSEPnr        = "national_id_se_personnummer"
	LabelFIHetu       = "national_id_fi_hetu"
	LabelNOFnr        = "national_id_no_fodselsnummer"
	LabelDKCPR        = "national_id_dk_cpr"
	LabelIP           = "ip_address"
	LabelPersonName   = "person_name"
	LabelStreet       = "street_address"
	LabelPostalCode   = "postal_code"
	LabelDateOfBirth  = "date_of_birth"
	LabelGender       = "gender"
	LabelAge          = "age"
	LabelGeo          = "geolocation"
	LabelPassword     = "password"
	LabelPasswordHash = "password_hash"
	LabelSecret       = "secret"
	LabelVIN          = "vin"
	LabelPassport     = "passport_number"
	LabelDriverLic    = "driver_license"
	LabelBankAccount  = "bank_account"
	LabelMAC          = "mac_address"
	LabelUsername     = "username"

	LabelHealth      = "health"
	LabelReligion    = "religion"
	LabelEthnicity   = "ethnicity"
	LabelOrientation = "sexual_orientation"
	LabelPolitical   = "political_opinion"
	LabelBiometric   = "biometric"
	LabelTradeUnion  = "trade_union"

	LabelIdentifier = "identifier"
	LabelURL        = "url"
	LabelCategory   = "category"
	LabelNumber     = "number"
	LabelMoney      = "money"
	LabelDatetime   = "datetime"
	LabelDate       = "date"
	LabelBoolean    = "boolean"
	LabelFreeText   = "free_text"
	LabelUnknown    = "unknown"
)

var personalLabels = map[string]bool{
	LabelEmail: true, LabelPhone: true, LabelPaymentCard: true, LabelIBAN: true, LabelNationalID: true,
	LabelSSN: true, LabelSEPnr: true, LabelFIHetu: true, LabelNOFnr: true, LabelDKCPR: true, LabelIP: true,
	LabelPersonName: true, LabelStreet: true, LabelPostalCode: true, LabelDateOfBirth: true,
	LabelGender: true, LabelAge: true, LabelGeo: true, LabelPassword: true, LabelPasswordHash: true,
	LabelSecret: true, LabelVIN: true, LabelPassport: true, LabelDriverLic: true, LabelBankAccount: true,
	LabelMAC: true, LabelUsername: true,
}

// Why the newer labels are personal or not:
//   - vin: a vehicle identification number names one vehicle, and registers
//     link it to its keeper, so it identifies a person indirectly (as the
//     number plate does); it is personal wherever the data set is about
//     people's vehicles, which is where VINs appear.
//   - passport_number, driver_license, bank_account: numbers issued to one
//     person (or to an account held by one).
//   - mac_address, username: online identifiers (GDPR Recital 30), like IP
//     addresses: a device's hardware address and a login name single out
//     their user.
//   - url is none: a web address names a page, not a person; personal data
//     inside some URLs (a profile path, a token) is not what the label says.

var specialLabels = map[string]bool{
	LabelHealth: true, LabelReligion: true, LabelEthnicity: true, LabelOrientation: true,
	LabelPolitical: true, LabelBiometric: true, LabelTradeUnion: true,
}

// CategoryOf returns the GDPR category of a label.
func CategoryOf(label string) GDPRCategory {
	switch {
	case specialLabels[label]:
		return CategorySpecial
	case personalLabels[label]:
		return CategoryPersonal
	}
	return CategoryNone
}

func isSensitiveLabel(l string) bool { return personalLabels[l] || specialLabels[l] }

// labelPhrase is how evidence names a label.
var labelPhrase = map[string]string{
	LabelEmail: "e-mail address", LabelPhone: "phone number", LabelPaymentCard: "payment card number",
	LabelIBAN: "IBAN", LabelNationalID: "national identity number", LabelSSN: "US social security number",
	LabelSEPnr: "Swedish personnummer", LabelFIHetu: "Finnish henkilötunnus", LabelNOFnr: "Norwegian fødselsnummer",
	LabelDKCPR: "Danish CPR number", LabelIP: "IP address", LabelPersonName: "person name",
	LabelStreet: "street address", LabelPostalCode: "postal code", LabelDateOfBirth: "date of birth",
	LabelGender: "gender", LabelAge: "age", LabelGeo: "geolocation", LabelPassword: "password",
	LabelPasswordHash: "password hash", LabelSecret: "secret or API key", LabelHealth: "health data",
	LabelReligion: "religion", LabelEthnicity: "ethnicity", LabelOrientation: "sexual orientation",
	LabelPolitical: "political opinion", LabelBiometric: "biometric data", LabelTradeUnion: "trade union membership",
	LabelIdentifier: "identifier", LabelCategory: "category", LabelNumber: "number", LabelMoney: "money amount",
	LabelDatetime: "timestamp", LabelDate: "date", LabelBoolean: "boolean", LabelFreeText: "free text",
	LabelVIN: "vehicle identification number", LabelPassport: "passport number", LabelDriverLic: "driver's licence number",
	LabelBankAccount: "bank account number", LabelMAC: "MAC address", LabelUsername: "username", LabelURL: "URL",
}

// IsPersonal reports whether r is personal data (category personal or
// special_category) with confidence ≥ AlertThreshold.
func IsPersonal(r Result) bool {
	return (r.Category == CategoryPersonal || r.Category == CategorySpecial) && r.Confidence >= AlertThreshold
}

// Confidence model constants (see package documentation).
const (
	wilsonZ          = 1.96
	nameAgreeBonus   = 0.10
	nameConflictCost = 0.15
	minShare         = 0.85
	minShareNamed    = 0.70
)

// wilsonLower is the lower bound of the Wilson score interval for p over n.
func wilsonLower(p float64, n int) float64 {
	if n <= 0 {
		return 0
	}
	nf := float64(n)
	z2 := wilsonZ * wilsonZ
	center := p + z2/(2*nf)
	margin := wilsonZ * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return math.Max(0, (center-margin)/(1+z2/nf))
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }

// item is one distinct sample value with its multiplicity.
type item struct {
	v     string
	lower string
	c     int
}

type parsedTime struct {
	t time.Time
	k timeKind
}

// column is the analysed input shared by all detectors.
type column struct {
	name  nameInfo
	items []item
	n     int
	now   time.Time

	times     []parsedTime // lazily parsed, per item
	timesDone bool
}

func newColumn(name string, sample []string, now time.Time) *column {
	c := &column{name: analyzeName(name), now: now}
	idx := make(map[string]int, len(sample))
	for _, raw := range sample {
		v := strings.TrimSpace(raw)
		if v == "" {
			continue
		}
		if i, ok := idx[v]; ok {
			c.items[i].c++
			c.n++
			continue
		}
		idx[v] = len(c.items)
		c.items = append(c.items, item{v: v, lower: strings.ToLower(v), c: 1})
		c.n++
	}
	return c
}

func (c *column) distinct() int { return len(c.items) }

// count returns the weighted number of values satisfying pred.
func (c *column) count(pred func(it item) bool) float64 {
	m := 0
	for _, it := range c.items {
		if pred(it) {
			m += it.c
		}
	}
	return float64(m)
}

// countEarly is count for expensive validators: it stops and returns -1 once
// at least 100 values have been seen and fewer than half matched, or when
// fewer than half can match anymore.
func (c *column) countEarly(pred func(it item) bool) float64 {
	m, seen := 0, 0
	for _, it := range c.items {
		if pred(it) {
			m += it.c
		}
		seen += it.c
		if seen >= 100 && m*2 < seen {
			return -1
		}
	}
	return float64(m)
}

func (c *column) parsedTimes() []parsedTime {
	if c.timesDone {
		return c.times
	}
	c.timesDone = true
	p := &timeParser{compact: c.name.hints[LabelDate] || c.name.hints[LabelDateOfBirth]}
	c.times = make([]parsedTime, len(c.items))
	for i, it := range c.items {
		t, k := p.parse(it.v)
		c.times[i] = parsedTime{t, k}
	}
	return c.times
}

// cand is a candidate label proposed by a detector.
type cand struct {
	label    string
	matches  float64 // weighted count of values passing the validator
	strength float64
	what     string   // completes "N% of the n values …"
	extra    []string // additional evidence
	tier     int      // 1: specific label, 2: generic fallback
	prio     int      // tie-break: higher wins
	minShare float64  // overrides the default gate when > 0

	// computed
	p, conf         float64
	agree, conflict bool
	other           string
	eligible        bool
}

// Column classifies a column from its name and a sample of its non-null
// values (up to ~1000).
func Column(name string, sample []string) Result {
	return classifyAt(name, sample, time.Now())
}

func classifyAt(name string, sample []string, now time.Time) Result {
	c := newColumn(name, sample, now)
	if c.n == 0 {
		ev := []string{"no non-null values in the sample"}
		if h := c.name.sensitiveHint(); h != "" {
			ev = append(ev, fmt.Sprintf("column name suggests %s, but there are no values to confirm it", labelPhrase[h]))
		}
		return Result{Label: LabelUnknown, Category: CategoryNone, Confidence: 0, Evidence: ev}
	}

	var cands []*cand
	for _, d := range detectors {
		if k := d(c); k != nil && k.matches > 0 {
			cands = append(cands, k)
		}
	}
	byLabel := map[string]*cand{}
	var eligible []*cand
	for _, k := range cands {
		c.score(k)
		if prev, ok := byLabel[k.label]; !ok || k.conf > prev.conf {
			byLabel[k.label] = k
		}
		gate := k.minShare
		if gate == 0 {
			gate = minShare
			if k.agree {
				gate = minShareNamed
			}
		}
		if k.p >= gate {
			k.eligible = true
			eligible = append(eligible, k)
		}
	}
	best := pick(eligible, 1)
	if best == nil {
		best = pick(eligible, 2)
	}
	if best == nil {
		best = &cand{label: LabelUnknown, tier: 2,
			extra: []string{"no validator, pattern or vocabulary matched enough of the values"}}
		best.conf = 0.3
	}
	r := c.result(best, byLabel)
	r.Conformance = c.conformance(best.label)
	return r
}

// score computes p, name relation and confidence of k.
func (c *column) score(k *cand) {
	k.p = math.Min(1, k.matches/float64(c.n))
	k.agree, k.conflict, k.other = c.name.relation(k.label)
	conf := wilsonLower(k.p, c.n) * k.strength
	if k.agree {
		conf += nameAgreeBonus
	}
	if k.conflict {
		conf -= nameConflictCost
	}
	k.conf = math.Round(clamp01(conf)*1000) / 1000
}

func pick(cs []*cand, tier int) *cand {
	var best *cand
	for _, k := range cs {
		if k.tier != tier {
			continue
		}
		if best == nil || k.conf > best.conf || (k.conf == best.conf && k.prio > best.prio) {
			best = k
		}
	}
	return best
}

func pct(p float64) int {
	x := int(math.Floor(p*100 + 1e-9))
	if x == 100 && p < 1 {
		x = 99
	}
	return x
}

func (c *column) result(k *cand, byLabel map[string]*cand) Result {
	r := Result{Label: k.label, Category: CategoryOf(k.label), Confidence: k.conf}
	if k.what != "" {
		r.Evidence = append(r.Evidence, fmt.Sprintf("%d%% of %d values %s", pct(k.p), c.n, k.what))
	}
	r.Evidence = append(r.Evidence, k.extra...)
	switch {
	case k.agree && k.label != LabelUnknown:
		r.Evidence = append(r.Evidence, fmt.Sprintf("column name suggests %s", labelPhrase[k.label]))
	case k.conflict:
		r.Evidence = append(r.Evidence, fmt.Sprintf("column name suggests %s, which the values do not support; confidence lowered", labelPhrase[k.other]))
	}
	// Explain an unsupported personal-data name when the winner is something else.
	h := c.name.sensitiveHint()
	if h != "" && family(h) != family(k.label) && !k.conflict && !k.agree {
		if hk, ok := byLabel[h]; ok && h != LabelNationalID {
			r.Evidence = append(r.Evidence, fmt.Sprintf("column name suggests %s, but only %d%% of values match", labelPhrase[h], pct(hk.p)))
		} else {
			r.Evidence = append(r.Evidence, fmt.Sprintf("column name suggests %s, but the values do not match", labelPhrase[h]))
		}
	}
	// Mention the strongest personal-data signal that fell short of the gate.
	var near *cand
	for _, o := range byLabel {
		if o == k || o.eligible || o.label == h || !isSensitiveLabel(o.label) || o.p < 0.5 {
			continue
		}
		if near == nil || o.p > near.p || o.p == near.p && o.label < near.label {
			near = o
		}
	}
	if near != nil && !isSensitiveLabel(k.label) {
		r.Evidence = append(r.Evidence, fmt.Sprintf("%d%% of values %s, short of the %d%% needed for %s", pct(near.p), near.what, pct(minShare), labelPhrase[near.label]))
	}
	if len(c.name.droppedHints) > 0 && !isSensitiveLabel(k.label) {
		d := slices.Clone(c.name.droppedHints)
		slices.Sort(d)
		r.Evidence = append(r.Evidence, fmt.Sprintf("column name qualifies %s (e.g. a flag, type or count), so it is not treated as that data", labelPhrase[d[0]]))
	}
	if c.n < 30 {
		r.Evidence = append(r.Evidence, fmt.Sprintf("only %d values sampled; confidence reduced", c.n))
	}
	return r
}
