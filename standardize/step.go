package standardize

// StepMapping is the params "mapping" of the corrections package's
// format_fix "standardize" step: each variant to its canonical value. Pass
// the mappings the user approved; that step accepts at most 10,000
// variants, and Cluster sorts its mappings by cluster, most frequent
// canonical value first, so a prefix keeps the clusters that matter most.
func StepMapping(ms []Mapping) map[string]string {
	out := make(map[string]string, len(ms))
	for _, m := range ms {
		out[m.Variant] = m.Canonical
	}
	return out
}
