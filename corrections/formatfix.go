package corrections

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// format_fix rewrites the non-null values of a column into one format.
// Nulls (flagged, blank or null tokens) are left for null_fill.

// maxMapping bounds the variants of a standardize step.
const maxMapping = 10_000

func compileFormatFix(s *Step, p *params, columns []string) (compiled, error) {
	col, err := s.column(columns)
	if err != nil {
		return nil, err
	}
	var newFix func(*engine) cellFix
	switch s.Strategy {
	case StrategyTrim:
		newFix = stateless(strings.TrimSpace)
	case StrategyLower:
		newFix = stateless(strings.ToLower)
	case StrategyUpper:
		newFix = stateless(strings.ToUpper)
	case StrategyEmailNormalize:
		newFix = stateless(func(v string) string { return strings.ToLower(strings.TrimSpace(v)) })
	case StrategyTitle:
		// A Caser keeps state between calls: one per pass.
		newFix = func(*engine) cellFix {
			c := cases.Title(language.Und)
			return func(v string) (string, bool, error) { return c.String(v), true, nil }
		}
	case StrategyDateISO:
		newFix, err = dateFix(p)
	case StrategyPhoneE164:
		newFix, err = phoneFix(p)
	case StrategyDecimalPoint:
		newFix = func(*engine) cellFix { return decimalPointFix }
	case StrategyStandardize:
		newFix, err = standardizeFix(p)
	}
	if err != nil {
		return nil, err
	}
	return &cellStep{col: col, newFix: newFix}, nil
}

// stateless makes a fix that always succeeds out of a string function.
func stateless(f func(string) string) func(*engine) cellFix {
	fix := func(v string) (string, bool, error) { return f(v), true, nil }
	return func(*engine) cellFix { return fix }
}

// phoneFix writes phone numbers in E.164 (+14155550123). A number without
// a country code is read as one of default_region (ISO 3166 code, e.g.
// "GB"); without that region, or when it does not parse or is not a valid
// number, it is left as it is and counted as unfixed.
func phoneFix(p *params) (func(*engine) cellFix, error) {
	region, _, err := p.str("default_region", false)
	if err != nil {
		return nil, err
	}
	region = strings.ToUpper(strings.TrimSpace(region))
	if region == "" {
		region = "ZZ" // libphonenumber's unknown region: only +numbers parse
	} else if !phonenumbers.GetSupportedRegions()[region] {
		return nil, p.errorf("default_region", "%q is not a region phone numbers know (an ISO 3166 code such as US or GB)", region)
	}
	fix := func(v string) (string, bool, error) {
		n, err := phonenumbers.Parse(v, region)
		if err != nil || !phonenumbers.IsValidNumber(n) {
			return v, false, nil
		}
		return phonenumbers.Format(n, phonenumbers.E164), true, nil
	}
	return func(*engine) cellFix { return fix }, nil
}

// standardizeFix replaces each variant of mapping by its canonical value;
// other values stay as they are. With ignore_case, variants match
// whatever their case.
func standardizeFix(p *params) (func(*engine) cellFix, error) {
	mapping, err := p.mapping("mapping", maxMapping)
	if err != nil {
		return nil, err
	}
	if len(mapping) == 0 {
		return nil, p.errorf("mapping", "needs at least one variant")
	}
	ignoreCase, err := p.boolean("ignore_case")
	if err != nil {
		return nil, err
	}
	key := func(v string) string { return v }
	if ignoreCase {
		key = strings.ToLower
		folded := make(map[string]string, len(mapping))
		for variant, canonical := range mapping {
			k := key(variant)
			if prev, ok := folded[k]; ok && prev != canonical {
				return nil, p.errorf("mapping", "variants that differ only in case map to %q and %q: with ignore_case they must agree", prev, canonical)
			}
			folded[k] = canonical
		}
		mapping = folded
	}
	fix := func(v string) (string, bool, error) {
		if c, ok := mapping[key(v)]; ok {
			return c, true, nil
		}
		return v, true, nil
	}
	return func(*engine) cellFix { return fix }, nil
}
