package standardize

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

func dump(ms []Mapping) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "  %q (%d) → %q (%d) %s d=%d conf=%.3f\n", m.Variant, m.VariantCount, m.Canonical, m.CanonicalCount, m.Method, m.Distance, m.Confidence)
	}
	return b.String()
}

func joinSorted(set map[string]bool) string {
	var s []string
	for k := range set {
		s = append(s, k)
	}
	sort.Strings(s)
	return strings.Join(s, "")
}

// checkMappings asserts what must hold of any output: canonical values are
// input values and never variants, nothing maps to itself, a variant is
// mapped once, counts are the input's (summed over repeats), the ratio
// guard holds, digit sequences agree, confidences lie in (0,1), and the
// order is the documented one.
func checkMappings(t *testing.T, in []ValueCount, ms []Mapping, ratio float64) {
	t.Helper()
	counts := map[string]int64{}
	for _, v := range in {
		if v.Count > 0 {
			counts[v.Value] += v.Count
		}
	}
	variants := map[string]bool{}
	for _, m := range ms {
		if variants[m.Variant] {
			t.Errorf("%q mapped twice", m.Variant)
		}
		variants[m.Variant] = true
	}
	var k keyer
	digits := func(s string) string { k.run(s); return string(k.digits) }
	for i, m := range ms {
		if _, ok := counts[m.Canonical]; !ok {
			t.Errorf("canonical %q is not an input value", m.Canonical)
		}
		if m.Variant == m.Canonical {
			t.Errorf("%q maps to itself", m.Variant)
		}
		if variants[m.Canonical] {
			t.Errorf("chain: canonical %q is also a variant", m.Canonical)
		}
		if counts[m.Variant] != m.VariantCount || counts[m.Canonical] != m.CanonicalCount {
			t.Errorf("%q→%q: counts %d, %d, want %d, %d", m.Variant, m.Canonical, m.VariantCount, m.CanonicalCount, counts[m.Variant], counts[m.Canonical])
		}
		if float64(m.CanonicalCount) < ratio*float64(m.VariantCount) {
			t.Errorf("%q→%q: ratio %d/%d below %v", m.Variant, m.Canonical, m.CanonicalCount, m.VariantCount, ratio)
		}
		if digits(m.Variant) != digits(m.Canonical) {
			t.Errorf("%q→%q: digits differ", m.Variant, m.Canonical)
		}
		if !(m.Confidence > 0 && m.Confidence < 1) {
			t.Errorf("%q→%q: confidence %v", m.Variant, m.Canonical, m.Confidence)
		}
		if i > 0 {
			p := ms[i-1]
			if p.CanonicalCount < m.CanonicalCount || (p.CanonicalCount == m.CanonicalCount && p.Canonical > m.Canonical) ||
				(p.Canonical == m.Canonical && (p.VariantCount < m.VariantCount || (p.VariantCount == m.VariantCount && p.Variant > m.Variant))) {
				t.Errorf("out of order: %+v before %+v", p, m)
			}
		}
	}
}
