package profile

import (
	"strconv"
	"testing"

	"github.com/zeebo/xxh3"
)

// BenchmarkValuesUnique measures the values table on a stream of distinct
// values (ids, e-mail addresses), past its exact phase: the common case of a
// wide table's unique columns (per value).
func BenchmarkValuesUnique(b *testing.B) {
	const n = 1 << 20
	keys := make([]string, n)
	hashes := make([]uint64, n)
	for i := range keys {
		keys[i] = "user" + strconv.Itoa(i*7919) + "@example.com"
		hashes[i] = xxh3.HashStringSeed(keys[i], hashSeed)
	}
	s := newSpaceSaving(maxExactDistinct, topKeyBytes)
	s.shrink = heavyCap
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.add(hashes[i], keys[i])
		if i++; i == n {
			i = 0
		}
	}
}
