package standardize

import (
	"bytes"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Fingerprint is OpenRefine's fingerprint key of s: trimmed, lower-cased,
// folded to ASCII where a letter has an ASCII reading, without punctuation
// and control characters, its whitespace-separated tokens sorted, deduped
// and joined by a space. "N.Y." → "ny", " Göteborg  " → "goteborg",
// "Smith, John" → "john smith".
func Fingerprint(s string) string {
	var k keyer
	k.run(s)
	return string(k.fingerprint())
}

// NGramFingerprint is OpenRefine's n-gram fingerprint key of s: folded and
// cleaned as Fingerprint, without whitespace, then its sorted unique
// character n-grams concatenated. A value shorter than n is its own key.
// n below 1 means DefaultNGramSize.
func NGramFingerprint(s string, n int) string {
	if n < 1 {
		n = DefaultNGramSize
	}
	k := keyer{n: n}
	k.run(s)
	return string(k.ngramKey(nil))
}

// keyer computes the keys of one value at a time into reused buffers, so
// that keying a million values allocates only for the keys that are new.
type keyer struct {
	n int // n-gram size

	// compact is the value folded, lower-cased and cleaned, its tokens
	// back to back without whitespace; toks are the tokens' ranges in it.
	compact []byte
	toks    [][2]int32
	start   int32 // start of the token being read, -1 between tokens
	ascii   bool  // compact is all ASCII
	// digits is the value's digit sequence, in order.
	digits []byte

	fp     []byte
	grams  []uint64   // ASCII n-grams packed (n ≤ 8)
	rgrams [][2]int32 // n-gram ranges in compact (other cases)
	runeAt []int32
}

// run reads s into compact, toks and digits.
func (k *keyer) run(s string) {
	k.compact, k.toks, k.digits = k.compact[:0], k.toks[:0], k.digits[:0]
	k.start, k.ascii = -1, true
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			k.addASCII(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k.addRune(r)
	}
	k.endToken()
}

func (k *keyer) addASCII(c byte) {
	switch {
	case 'a' <= c && c <= 'z':
	case 'A' <= c && c <= 'Z':
		c += 'a' - 'A'
	case '0' <= c && c <= '9':
		k.digits = append(k.digits, c)
	case c == ' ' || ('\t' <= c && c <= '\r'):
		k.endToken()
		return
	default: // punctuation, symbols and control characters go
		return
	}
	if k.start < 0 {
		k.start = int32(len(k.compact))
	}
	k.compact = append(k.compact, c)
}

func (k *keyer) addRune(r rune) {
	switch {
	case 0xFF01 <= r && r <= 0xFF5E: // full-width ASCII
		k.addASCII(byte(r - 0xFEE0))
	case unicode.IsSpace(r):
		k.endToken()
	case r < foldLimit && foldTable[r] != "":
		for _, c := range foldTable[r] {
			k.emit(c)
		}
	case unicode.IsPunct(r) || unicode.In(r, unicode.Mn, unicode.Me, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs):
		// Punctuation, marks left by decomposed input and invisible
		// characters (zero-width space, joiners) go.
	default:
		if unicode.IsDigit(r) {
			k.digits = utf8.AppendRune(k.digits, r)
		}
		k.emit(unicode.ToLower(r))
	}
}

func (k *keyer) emit(r rune) {
	if r < utf8.RuneSelf {
		k.addASCII(byte(r))
		return
	}
	if k.start < 0 {
		k.start = int32(len(k.compact))
	}
	k.ascii = false
	k.compact = utf8.AppendRune(k.compact, r)
}

func (k *keyer) endToken() {
	if k.start >= 0 {
		k.toks = append(k.toks, [2]int32{k.start, int32(len(k.compact))})
		k.start = -1
	}
}

func (k *keyer) tok(t [2]int32) []byte { return k.compact[t[0]:t[1]] }

// fingerprint is the fingerprint key of the value last run, in a buffer
// that the next call reuses.
func (k *keyer) fingerprint() []byte {
	k.fp = k.fp[:0]
	if len(k.toks) == 1 {
		return append(k.fp, k.compact...)
	}
	cmp := func(a, b [2]int32) int { return bytes.Compare(k.tok(a), k.tok(b)) }
	if len(k.toks) <= 16 {
		for i := 1; i < len(k.toks); i++ { // insertion sort: values have few tokens
			for j := i; j > 0 && cmp(k.toks[j-1], k.toks[j]) > 0; j-- {
				k.toks[j-1], k.toks[j] = k.toks[j], k.toks[j-1]
			}
		}
	} else {
		slices.SortFunc(k.toks, cmp)
	}
	for i, t := range k.toks {
		if i > 0 && bytes.Equal(k.tok(k.toks[i-1]), k.tok(t)) {
			continue
		}
		if len(k.fp) > 0 {
			k.fp = append(k.fp, ' ')
		}
		k.fp = append(k.fp, k.tok(t)...)
	}
	return k.fp
}

// ngramKey appends the n-gram fingerprint of the value last run to dst.
func (k *keyer) ngramKey(dst []byte) []byte {
	n := k.n
	if k.ascii && n == 2 && len(k.compact) >= 2 {
		return k.bigramKey(dst)
	}
	if k.ascii && n <= 8 {
		if len(k.compact) < n {
			return append(dst, k.compact...)
		}
		// Pack each n-gram big-endian into a uint64: numeric order is
		// byte order, and sorting integers is cheap.
		k.grams = k.grams[:0]
		for i := 0; i+n <= len(k.compact); i++ {
			var g uint64
			for _, c := range k.compact[i : i+n] {
				g = g<<8 | uint64(c)
			}
			k.grams = append(k.grams, g)
		}
		sortSmall(k.grams)
		for i, g := range k.grams {
			if i > 0 && g == k.grams[i-1] {
				continue
			}
			for s := (n - 1) * 8; s >= 0; s -= 8 {
				dst = append(dst, byte(g>>s))
			}
		}
		return dst
	}
	k.runeAt = k.runeAt[:0]
	for i := range string(k.compact) {
		k.runeAt = append(k.runeAt, int32(i))
	}
	k.runeAt = append(k.runeAt, int32(len(k.compact)))
	if len(k.runeAt)-1 < n {
		return append(dst, k.compact...)
	}
	k.rgrams = k.rgrams[:0]
	for i := 0; i+n < len(k.runeAt); i++ {
		k.rgrams = append(k.rgrams, [2]int32{k.runeAt[i], k.runeAt[i+n]})
	}
	slices.SortFunc(k.rgrams, func(a, b [2]int32) int { return bytes.Compare(k.tok(a), k.tok(b)) })
	for i, g := range k.rgrams {
		// Every n-gram is n whole runes, so the concatenation is
		// unambiguous without a separator.
		if i > 0 && bytes.Equal(k.tok(k.rgrams[i-1]), k.tok(g)) {
			continue
		}
		dst = append(dst, k.tok(g)...)
	}
	return dst
}

// bigramKey is ngramKey for the default n = 2 and an ASCII value, whose
// compact form holds only 0–9 and a–z: 36 symbols, 1296 bigrams, in a
// bitmap whose bit order is the bigrams' byte order. Setting bits and
// reading them back in order sorts and dedupes without comparisons.
func (k *keyer) bigramKey(dst []byte) []byte {
	var set [(36*36 + 63) / 64]uint64
	var used uint32 // the words of set with a bit set
	for i := 0; i+1 < len(k.compact); i++ {
		g := symbol(k.compact[i])*36 + symbol(k.compact[i+1])
		set[g/64] |= 1 << (g % 64)
		used |= 1 << (g / 64)
	}
	for used != 0 {
		w := bits.TrailingZeros32(used)
		used &= used - 1
		for word := set[w]; word != 0; {
			g := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			dst = append(dst, symbols[g/36], symbols[g%36])
		}
	}
	return dst
}

const symbols = "0123456789abcdefghijklmnopqrstuvwxyz"

// symbol is c's index in symbols.
func symbol(c byte) int {
	if c <= '9' {
		return int(c - '0')
	}
	return int(c-'a') + 10
}

// sortSmall sorts s, by insertion for the short slices most values give.
func sortSmall(s []uint64) {
	if len(s) > 32 {
		slices.Sort(s)
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j-1] > s[j]; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}
