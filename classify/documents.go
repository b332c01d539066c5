package classify

import (
	"fmt"
	"strings"
)

// ---------------------------------------------------------------------------
// Vehicle identification numbers (ISO 3779)

// vinValue is the value weight of a VIN: vinChecked when the ISO 3779 check
// digit at position 9 holds, vinShaped when only the shape does.
type vinValue int

const (
	vinNone vinValue = iota
	vinShaped
	vinChecked
)

// vinTranslit gives the ISO 3779 value of each letter; I, O and Q are never
// used (they read as 1 and 0).
var vinTranslit = map[byte]int{
	'A': 1, 'B': 2, 'C': 3, 'D': 4, 'E': 5, 'F': 6, 'G': 7, 'H': 8, 'J': 1, 'K': 2, 'L': 3, 'M': 4,
	'N': 5, 'P': 7, 'R': 9, 'S': 2, 'T': 3, 'U': 4, 'V': 5, 'W': 6, 'X': 7, 'Y': 8, 'Z': 9,
}

var vinWeights = [17]int{8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2}

// classifyVIN reads v as a VIN: 17 letters and digits without I, O and Q,
// both letters and digits, and a model-year character (position 10) that
// is neither U, Z nor 0. North American VINs carry a check digit (0–9 or
// X) at position 9; European and Asian makers need not fill it in, so a
// failing check leaves a VIN-shaped value.
func classifyVIN(v string) vinValue {
	if len(v) != 17 {
		return vinNone
	}
	u := strings.ToUpper(v)
	sum, letters, digits := 0, 0, 0
	for i := 0; i < 17; i++ {
		c := u[i]
		var x int
		switch {
		case isDigit(c):
			x = int(c - '0')
			digits++
		case vinTranslit[c] > 0:
			x = vinTranslit[c]
			letters++
		default:
			return vinNone
		}
		sum += x * vinWeights[i]
	}
	if letters == 0 || digits == 0 || strings.IndexByte("UZ0", u[9]) >= 0 {
		return vinNone
	}
	check := byte('0' + sum%11)
	if sum%11 == 10 {
		check = 'X'
	}
	if u[8] == check {
		return vinChecked
	}
	return vinShaped
}

// vinShapedStrength is what a VIN-shaped value without a valid check
// digit proves under a VIN name: the shape is specific, but a fifth of
// random 17-character codes pass it.
const vinShapedStrength = 0.8

func detVIN(c *column) *cand {
	hint := c.hint(LabelVIN)
	var checked, shaped float64
	c.count(func(it item) bool {
		switch classifyVIN(it.v) {
		case vinChecked:
			checked += float64(it.c)
		case vinShaped:
			shaped += float64(it.c)
		}
		return false
	})
	k := &cand{label: LabelVIN, matches: checked, strength: 1.0, tier: 1, prio: prioChecksum - 1,
		what: "are VINs with a valid ISO 3779 check digit"}
	if hint && shaped > 0 {
		// Under a VIN name, European VINs without the check digit count too,
		// for less.
		k.matches = checked + shaped
		k.strength = (checked + shaped*vinShapedStrength) / k.matches
		k.what = "are VINs (17 characters without I, O, Q)"
		k.extra = append(k.extra, fmt.Sprintf("%d%% of them pass the check digit, which only North American VINs must carry", pct(checked/k.matches)))
	}
	if k.matches == 0 {
		return nil
	}
	return c.fewDistinct(k)
}

// ---------------------------------------------------------------------------
// Passports, driver's licences, bank accounts: numbers whose formats vary by
// issuer, so the name must say what they are and the values must fit.

// documentNumber reports whether v is written like a passport or licence
// number: 6 to 12 letters and digits, at least two of them digits (words
// and licence names such as BSD-3-Clause are not), in one run or in groups
// separated by spaces or dashes when groups is set.
func documentNumber(v string, groups bool) bool {
	if groups {
		v = strings.NewReplacer(" ", "", "-", "").Replace(v)
	}
	if len(v) < 6 || len(v) > 12 {
		return false
	}
	digits := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
			digits++
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		default:
			return false
		}
	}
	return digits >= 2
}

// detNamed proposes label for a column named after it whose values,
// other than dates, satisfy valid: for labels whose values have no format
// of their own, the name must say what they are.
func detNamed(c *column, label string, valid func(v string) bool, what string) *cand {
	if !c.hint(label) {
		return nil
	}
	pts := c.parsedTimes()
	var m float64
	for i, it := range c.items {
		if pts[i].k == notTime && valid(it.v) {
			m += float64(it.c)
		}
	}
	if m == 0 {
		return nil
	}
	return c.fewDistinct(&cand{label: label, matches: m, strength: 0.85, tier: 1, prio: prioPersonal, what: what})
}

func detPassport(c *column) *cand {
	return detNamed(c, LabelPassport, func(v string) bool { return documentNumber(v, false) },
		"are 6–12 letters and digits, as passport numbers are written")
}

func detDriverLicense(c *column) *cand {
	return detNamed(c, LabelDriverLic, func(v string) bool { return documentNumber(v, true) },
		"are 6–12 letters and digits, as driver's licence numbers are written")
}

// bankAccountDigits returns the digits of a domestic account number: 6 to
// 17 digits, plain or grouped with single spaces or dashes (12-3456-789).
func bankAccountDigits(v string) (string, bool) {
	d, ok := compactDigits(v, " -")
	return d, ok && len(d) >= 6 && len(d) <= 17
}

func detBankAccount(c *column) *cand {
	var ds []string
	k := detNamed(c, LabelBankAccount, func(v string) bool {
		d, ok := bankAccountDigits(v)
		if ok {
			ds = append(ds, d)
		}
		return ok
	}, "are 6–17 digit account numbers")
	if k == nil || sequentialNumbers(ds) {
		return nil // a CRM's running account numbers, not bank accounts
	}
	return k
}
