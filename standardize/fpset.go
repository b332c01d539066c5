package standardize

import (
	"slices"
	"unicode/utf8"
)

// fpSet holds fingerprints in UTF-8 in one arena, with the digit sequence
// each carries (pairs with different digits never link) and a signature
// for the candidate filter. Almost every fingerprint is ASCII, where a
// byte is a rune: distances and segments then work on the bytes, and
// only the others are decoded.
type fpSet struct {
	text  []byte
	off   []int   // fingerprint i is text[off[i]:off[i+1]]
	runeN []int32 // its length in runes
	digit []int32
	sig   []signature
}

// grow makes room for n more fingerprints of about size bytes.
func (f *fpSet) grow(n, size int) {
	f.text = slices.Grow(f.text, size)
	f.off = slices.Grow(f.off, n+1)
	f.runeN = slices.Grow(f.runeN, n)
	f.digit = slices.Grow(f.digit, n)
	f.sig = slices.Grow(f.sig, n)
}

func (f *fpSet) add(fp []byte, digit int32) {
	if len(f.off) == 0 {
		f.off = append(f.off, 0)
	}
	f.text = append(f.text, fp...)
	f.off = append(f.off, len(f.text))
	f.runeN = append(f.runeN, int32(utf8.RuneCount(fp)))
	f.digit = append(f.digit, digit)
	f.sig = append(f.sig, signatureOf(fp))
}

// addFrom copies fingerprint i of g.
func (f *fpSet) addFrom(g *fpSet, i int32) {
	if len(f.off) == 0 {
		f.grow(g.len(), len(g.text))
		f.off = append(f.off, 0)
	}
	f.text = append(f.text, g.bytes(i)...)
	f.off = append(f.off, len(f.text))
	f.runeN = append(f.runeN, g.runeN[i])
	f.digit = append(f.digit, g.digit[i])
	f.sig = append(f.sig, g.sig[i])
}

func (f *fpSet) len() int { return len(f.digit) }

// bytes is fingerprint i in UTF-8.
func (f *fpSet) bytes(i int32) []byte { return f.text[f.off[i]:f.off[i+1]] }

// runeLen is the length of fingerprint i in runes.
func (f *fpSet) runeLen(i int32) int { return int(f.runeN[i]) }

// ascii reports whether fingerprint i is all ASCII, one byte a rune.
func (f *fpSet) ascii(i int32) bool { return f.off[i+1]-f.off[i] == int(f.runeN[i]) }

// runes appends fingerprint i, decoded, to buf.
func (f *fpSet) runes(i int32, buf []rune) []rune {
	for _, r := range string(f.bytes(i)) {
		buf = append(buf, r)
	}
	return buf
}

// within is the distance between fingerprints a and b if at most k, or
// k+1: on bytes when both are ASCII, else on runes decoded into scratch.
func (f *fpSet) within(a, b int32, k int, scratch *[2][]rune) int {
	if f.ascii(a) && f.ascii(b) {
		return boundedLevenshtein(f.bytes(a), f.bytes(b), k)
	}
	scratch[0] = f.runes(a, scratch[0][:0])
	scratch[1] = f.runes(b, scratch[1][:0])
	return boundedLevenshtein(scratch[0], scratch[1], k)
}

// signature summarises a fingerprint for a filter that rejects most
// candidates in a few instructions, before the edit distance:
//
//   - bag is the multiset of its runes, by bucket (a–z and 0–9 have one
//     each, other runes are hashed onto the remaining 28) as bit planes:
//     bit b of bag[k] is set when bucket b holds more than k runes
//     (counts saturate at 3). Σₖ popcount(bag[k] &^ other.bag[k]) is then
//     the number of runes one holds in excess of the other (the "bag
//     distance"); an edit removes at most one rune and adds at most one,
//     so neither excess can exceed the edit distance.
//   - pairs is the set of its adjacent rune pairs, hashed onto 64 bits.
//     An edit removes at most two adjacent pairs and adds at most two, so
//     popcount(pairs ^ other.pairs) ≤ 4·distance.
//
// Both only ever underestimate (saturation and hashing merge, never
// split), so the filter never rejects a pair within the radius.
type signature struct {
	bag   [3]uint64
	pairs uint64
}

func signatureOf(fp []byte) signature {
	var s signature
	var count [64]uint8
	prev := rune(-1)
	for _, r := range string(fp) {
		b := runeBucket(r)
		if c := count[b]; c < 3 {
			s.bag[c] |= 1 << b
			count[b]++
		}
		if prev >= 0 {
			s.pairs |= pairBit(prev, r)
		}
		prev = r
	}
	return s
}

// far reports whether the fingerprints of s and o are certainly more than
// k edits apart.
func (s *signature) far(o *signature, k int) bool {
	more := popcount(s.bag[0]&^o.bag[0]) + popcount(s.bag[1]&^o.bag[1]) + popcount(s.bag[2]&^o.bag[2])
	less := popcount(o.bag[0]&^s.bag[0]) + popcount(o.bag[1]&^s.bag[1]) + popcount(o.bag[2]&^s.bag[2])
	return more > k || less > k || popcount(s.pairs^o.pairs) > 4*k
}

// runeBucket is r's bucket in a bag: 0–25 for a–z, 26–35 for 0–9, the
// others hashed onto 36–63.
func runeBucket(r rune) uint {
	switch {
	case 'a' <= r && r <= 'z':
		return uint(r - 'a')
	case '0' <= r && r <= '9':
		return uint(26 + r - '0')
	default:
		return 36 + uint(uint64(r)*0x9E3779B1%28)
	}
}

// pairBit is the bit of the adjacent runes a, b in a pair set.
func pairBit(a, b rune) uint64 {
	h := (uint64(a)<<21 | uint64(b)) * 0x9E3779B97F4A7C15
	return 1 << (h >> 58)
}
