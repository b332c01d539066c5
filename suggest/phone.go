package suggest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/quality"
)

// Phones: format_fix phone_e164 writes numbers in E.164 (+46701234567).
// A number with its country code (+46 70 123 45 67) has one reading: the
// step without a region rewrites those, phoneConfidence. A number without
// it (070-123 45 67) needs a default region, given only when the column
// shows it: one of the regions of its international numbers, in which at
// least phoneRegionShare of the national numbers are valid (the most
// common region first). That step's confidence is phoneConfidence times
// the share of national numbers valid in the region: a number valid there
// may still be a foreign one written without its code, and the fewer of
// them fail, the fewer are likely to be foreign.
const (
	phoneConfidence  = 0.97
	phoneRegionShare = 0.9
)

// phoneScan keeps the column's distinct numbers (up to MaxPhoneChecks),
// parsed once the pass is over, and counts the values past them.
type phoneScan struct {
	seen      map[string]int64
	order     []string
	checked   int64 // values among seen
	unchecked int64 // values past the bound
}

func newPhoneScan() *phoneScan { return &phoneScan{seen: map[string]int64{}} }

func (p *phoneScan) add(v string, maxChecks int) {
	if _, ok := p.seen[v]; ok {
		p.seen[v]++
		p.checked++
		return
	}
	if len(p.seen) >= maxChecks {
		p.unchecked++
		return
	}
	v = strings.Clone(v)
	p.seen[v] = 1
	p.order = append(p.order, v)
	p.checked++
}

// phoneCounts is what parsing the numbers found, in rows of the checked
// values.
type phoneCounts struct {
	intlRows    map[string]int64 // valid international numbers by region
	intlChanged int64            // of them, rows not already in E.164
	intlEx      []string
	national    []string // numbers without a valid country code
	invalid     int64    // + numbers that are not valid
}

func (p *phoneScan) count() phoneCounts {
	pc := phoneCounts{intlRows: map[string]int64{}}
	for _, v := range p.order {
		n := p.seen[v]
		if !strings.HasPrefix(v, "+") {
			pc.national = append(pc.national, v)
			continue
		}
		num, err := phonenumbers.Parse(v, "ZZ")
		if err != nil || !phonenumbers.IsValidNumber(num) {
			pc.invalid += n
			continue
		}
		pc.intlRows[phonenumbers.GetRegionCodeForNumber(num)] += n
		if phonenumbers.Format(num, phonenumbers.E164) != v {
			pc.intlChanged += n
			pc.intlEx = addExample(pc.intlEx, v)
		}
	}
	return pc
}

// nationalIn counts the rows of the national numbers valid in region.
func (p *phoneScan) nationalIn(national []string, region string) (valid, total int64, ex []string) {
	for _, v := range national {
		n := p.seen[v]
		total += n
		num, err := phonenumbers.Parse(v, region)
		if err == nil && phonenumbers.IsValidNumber(num) {
			valid += n
			ex = addExample(ex, v)
		}
	}
	return valid, total, ex
}

// phoneRule proposes phone_e164 steps for a phone column whose numbers
// are not all written in E.164.
func (s *scan) phoneRule(c *column) []Suggestion {
	p := c.phone
	if p == nil || p.checked == 0 {
		return nil
	}
	pc := p.count()
	// Counts of the checked values, scaled to all of them.
	scale := func(n int64) int64 { return n * (p.checked + p.unchecked) / p.checked }
	issue := s.issueOf(c, quality.KindInvalidFormat, quality.KindInconsistentFormat)
	var out []Suggestion
	if pc.intlChanged > 0 {
		out = append(out, Suggestion{
			Engine: EngineRule, CorrectionType: corrections.TypeFormatFix, Column: c.name, Strategy: corrections.StrategyPhoneE164,
			Confidence: phoneConfidence, Changes: scale(pc.intlChanged), Issue: issue,
			Explanation: fmt.Sprintf("%s of %q give their country code but are not written in E.164 (e.g. %s). The step rewrites them as + and digits only. Confidence %.2f: a number with its country code reads one way only; numbers without one are left as they are.",
				share(scale(pc.intlChanged), p.checked+p.unchecked, "numbers"), c.name, c.showAll(pc.intlEx), phoneConfidence),
		})
	}
	if len(pc.national) == 0 {
		return out
	}
	regions := make([]string, 0, len(pc.intlRows))
	for r := range pc.intlRows {
		regions = append(regions, r)
	}
	slices.SortFunc(regions, func(a, b string) int {
		if d := cmp.Compare(pc.intlRows[b], pc.intlRows[a]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, region := range regions {
		valid, total, ex := p.nationalIn(pc.national, region)
		if total == 0 || float64(valid) < phoneRegionShare*float64(total) {
			continue
		}
		validShare := float64(valid) / float64(total)
		conf := phoneConfidence * validShare
		out = append(out, Suggestion{
			Engine: EngineRule, CorrectionType: corrections.TypeFormatFix, Column: c.name, Strategy: corrections.StrategyPhoneE164,
			Params: map[string]any{"default_region": region}, Confidence: conf, Changes: scale(valid), Issue: issue,
			Explanation: fmt.Sprintf("%s of %q are written without a country code (e.g. %s). The step reads them as numbers of %s and rewrites them in E.164. "+
				"Confidence %.2f: %s is the country of %d of the numbers that give a code, and %.0f%% of the numbers without one are valid numbers there.",
				share(scale(valid), p.checked+p.unchecked, "numbers"), c.name, c.showAll(ex), region, conf, region, scale(pc.intlRows[region]), 100*validShare),
		})
		break
	}
	return out
}
