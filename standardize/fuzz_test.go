package standardize

import (
	"strings"
	"testing"
)

// FuzzCluster: no panic, and the invariants of checkMappings (canonical
// values are input values, nothing maps to itself, no chains, guards) on
// any input. The input is lines of values; a line's count derives from
// its position and length so that some values dominate others.
func FuzzCluster(f *testing.F) {
	f.Add("Stockholm\nstockholm \nSTOCKHOLM\nStokholm\nN.Y.\nNY", uint8(3))
	f.Add("Paris\nParts\nparts \nApt 12\nApt 13", uint8(1))
	f.Add("北京市\n北京市 \n北京\nZhang Wei 张伟\n\xff\xfe\n\u200b", uint8(7))
	f.Add("aaaaaaaa\naaaaaaab\naaaaaabb\naaaaabbb\naaaabbbb", uint8(2))
	g := newGen(9)
	var b strings.Builder
	for range 40 {
		b.WriteString(g.variant(g.city(g.r.IntN(30))) + "\n")
	}
	f.Add(b.String(), uint8(5))
	f.Fuzz(func(t *testing.T, data string, seed uint8) {
		lines := strings.Split(data, "\n")
		if len(lines) > 500 {
			lines = lines[:500]
		}
		in := make([]ValueCount, len(lines))
		for i, l := range lines {
			in[i] = ValueCount{l, int64((i*int(seed)+len(l)*7)%50) + int64(seed%3) - 1}
		}
		for _, opt := range []Options{{}, {MaxBlock: 1}, {NGramSize: 3, MinRatio: 1}} {
			ms, _ := Cluster(in, opt)
			checkMappings(t, in, ms, opt.withDefaults().MinRatio)
		}
	})
}
