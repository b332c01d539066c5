package classify

import (
	"fmt"
	"strings"
)

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
	case hint && numeric > 0 && maxDec == 0:
		// Whole amounts (salaries in dollars, prices in yen) under a
		// money name; without the name they are just integers.
		return &cand{label: LabelMoney, matches: numeric, strength: 0.8, tier: 1, prio: prioSpecific,
			what: "are whole amounts, under a name of money"}
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

// categorical reports whether distinct values over n form a category: at
// most 200 values, each repeated on average — four times in large columns,
// less in small ones, where a category has had little chance to repeat
// (1 + n/25 times: twice at 25 values).
func categorical(distinct, n int) bool {
	repeats := min(4, 1+float64(n)/25)
	return distinct <= 200 && float64(distinct)*repeats <= float64(n)
}

// detGeneric proposes the fallback labels: free_text, identifier, number,
// category. Only the most fitting one is returned.
func detGeneric(c *column) *cand {
	var text, numeric, integers, tokenLike, mentionsEmail float64
	lengths := map[int]float64{}
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
		lengths[len(it.v)] += w
	}
	n := float64(c.n)
	distinctRatio := float64(c.distinct()) / n
	idHint := c.hint(LabelIdentifier)
	// Equal length, up to a little junk: fixed-width codes.
	firstLen, modal := 0, 0.0
	for l, w := range lengths {
		if w > modal || w == modal && l < firstLen {
			firstLen, modal = l, w
		}
	}
	sameLen := modal >= 0.9*n
	few := categorical(c.distinct(), c.n)

	switch {
	case text >= 0.6*n:
		k := &cand{label: LabelFreeText, matches: text, strength: 0.9, tier: 2, prio: prioGeneric,
			what: "are multi-word text", minShare: 0.6}
		if mentionsEmail > 0 {
			k.extra = append(k.extra, fmt.Sprintf("%d%% of values mention an e-mail address inside text; the values themselves are not addresses", pct(mentionsEmail/n)))
		}
		return k
	case integers >= 0.85*n && (idHint && distinctRatio >= 0.3 || distinctRatio >= 0.9 && (sequentialNumbers(intDigits) || sameLen && firstLen >= 4 && !c.hint(LabelNumber))):
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
