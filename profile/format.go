package profile

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Format signatures.
//
// A value's shape is described at two granularities:
//
//   - fine: every run of letters (any case, any script) becomes "A+", every
//     run of digits "9+", every run of whitespace one " ", and any other
//     character stands for itself. "Aaaa9999" -> "A+9+", "AB-1234" -> "A+-9+",
//     "jo.doe@x.org" -> "A+.A+@A+.A+", "12.50" -> "9+.9+".
//   - coarse: the fine signature with every sequence of "A+" and "9+"
//     merged into one "X+" (so runs of letters and digits mixed become "X+"). "550e8400-e29b-41d4-..." -> "X+-X+-X+-X+-X+", where the fine
//     signature would differ from one UUID to the next.
//
// A leading '+' or '-' directly followed by a digit is ignored, so positive
// and negative numbers (and phone numbers with or without '+') share a shape.
// Signatures longer than maxSigLen bytes are cut and end with "…".
//
// Letters and digits never appear literally in a signature, and "X+" appears
// only in coarse ones, so a signature tells its own granularity.

const maxSigLen = 64

const (
	clsOther  byte = 0
	clsDigit  byte = '9'
	clsLetter byte = 'A'
	clsSpace  byte = ' '
	clsMulti  byte = 0x80 // first byte of a multi-byte UTF-8 sequence (or invalid)
)

var classTab = func() (t [256]byte) {
	for i := 0x80; i < 256; i++ {
		t[i] = clsMulti
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clsDigit
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clsLetter
		t[c-'a'+'A'] = clsLetter
	}
	for _, c := range " \t\n\r\v\f" {
		t[c] = clsSpace
	}
	return t
}()

// shape appends the fine and coarse signatures of v to fine and coarse
// (normally passed as buf[:0]) and returns them with v's length in runes and
// whether v is blank (empty or only whitespace). It does not allocate once
// the buffers have grown to maxSigLen+4 bytes.
//
// Both signatures are built in one pass: a letter or digit token opens an
// "X+" in the coarse one unless the token before was a letter or digit
// token too, and every other token is the same in both. Only a fine
// signature that had to be cut is coarsened afterwards, from its cut form.
func shape(fine, coarse []byte, v string) (f, c []byte, runes int, blank bool) {
	blank = true
	i, coarseStart := 0, len(coarse)
	if len(v) > 1 && (v[0] == '-' || v[0] == '+') && classTab[v[1]] == clsDigit {
		i, runes, blank = 1, 1, false
	}
	prev := byte(0xff)
	for i < len(v) && len(fine) <= maxSigLen {
		cls := classTab[v[i]]
		switch cls {
		case clsLetter, clsDigit:
			// An ASCII run: past its first byte it adds nothing.
			j := runEnd(v, i+1, cls)
			runes += j - i
			blank = false
			if prev != cls {
				fine = append(fine, cls, '+')
				if prev != clsLetter && prev != clsDigit {
					coarse = append(coarse, 'X', '+')
				}
			}
			prev, i = cls, j
			continue
		case clsSpace:
			runes++
			if prev != cls {
				fine = append(fine, ' ')
				coarse = append(coarse, ' ')
			}
			prev = cls
			i++
			continue
		case clsOther:
			runes++
			blank = false
			fine = append(fine, v[i])
			coarse = append(coarse, v[i])
			prev = cls
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case unicode.IsLetter(r):
			cls = clsLetter
		case unicode.IsDigit(r):
			cls = clsDigit
		case unicode.IsSpace(r):
			cls = clsSpace
		default:
			cls = clsOther
		}
		runes++
		if cls != clsSpace {
			blank = false
		}
		switch {
		case cls == clsOther:
			fine = append(fine, v[i:i+size]...)
			coarse = append(coarse, v[i:i+size]...)
		case prev == cls:
		case cls == clsSpace:
			fine = append(fine, ' ')
			coarse = append(coarse, ' ')
		default:
			fine = append(fine, cls, '+')
			if prev != clsLetter && prev != clsDigit {
				coarse = append(coarse, 'X', '+')
			}
		}
		prev = cls
		i += size
	}
	if i < len(v) { // cut: count the remaining runes and blankness
		for _, r := range v[i:] {
			runes++
			if r >= 0x80 || classTab[r] != clsSpace {
				blank = false
			}
		}
	}
	if len(fine) > maxSigLen {
		fine = truncSig(fine)
		coarse = coarsen(coarse[:coarseStart], fine)
	}
	return fine, coarse, runes, blank
}

// runEnd returns the end of the run of ASCII letters (cls == clsLetter) or
// digits (clsDigit) in v that goes on at j. It tests eight bytes at a time:
// words and numbers are a few bytes long, and a loop byte by byte
// mispredicts at nearly every run's end.
func runEnd(v string, j int, cls byte) int {
	for ; j+8 <= len(v); j += 8 {
		w := load64(v, j)
		var in uint64
		if cls == clsLetter {
			in = asciiLetters(w)
		} else {
			in = asciiDigits(w)
		}
		if out := ^in & hiBits; out != 0 {
			return j + bits.TrailingZeros64(out)>>3
		}
	}
	for j < len(v) && classTab[v[j]] == cls {
		j++
	}
	return j
}

// SWAR byte tests: each sets the high bit of every byte of w that passes and
// clears the other bits. A byte's test never carries into the next byte: a
// byte is reduced to 7 bits before anything is added to it.
const (
	oneBytes = 0x0101010101010101
	hiBits   = 0x8080808080808080
	lo7Bits  = 0x7f7f7f7f7f7f7f7f
)

// inRange marks the bytes of w in [lo, hi] (with lo, hi < 0x80); x is w
// reduced to 7 bits per byte, so x+(0x80-lo) has its high bit set exactly
// when x >= lo.
func inRange(w, x uint64, lo, hi byte) uint64 {
	ge := x + (0x80-uint64(lo))*oneBytes
	gt := x + (0x80-uint64(hi)-1)*oneBytes
	return ge &^ gt &^ w & hiBits
}

// asciiLetters marks the bytes of w that are ASCII letters: folded to lower
// case (0x20 set), they lie in a..z.
func asciiLetters(w uint64) uint64 { return inRange(w, (w|0x2020202020202020)&lo7Bits, 'a', 'z') }

// asciiDigits marks the bytes of w that are ASCII digits.
func asciiDigits(w uint64) uint64 { return inRange(w, w&lo7Bits, '0', '9') }

// maxLayoutBytes bounds the values a column keeps a copy of, to recognise a
// next value laid out the same way (sameLayout) without building its
// signatures: dates, timestamps, ids and codes of one width.
const maxLayoutBytes = 64

// sameLayout reports whether a and b are all ASCII, of the same length, with
// letters at the same places, digits at the same places and the same bytes
// everywhere else. Such values have the same signatures (letter and digit
// runs, and every other byte, coincide) and as many runes as bytes.
func sameLayout(a, b string) bool {
	n := len(a)
	if n != len(b) {
		return false
	}
	if n < 8 {
		for i := range n {
			x, y := a[i], b[i]
			if (x|y) >= utf8.RuneSelf || classTab[x] != classTab[y] {
				return false
			}
			if cls := classTab[x]; cls != clsLetter && cls != clsDigit && x != y {
				return false
			}
		}
		return true
	}
	// Word by word; a last partial word is the string's last eight bytes,
	// which overlap the word before.
	for i := 0; ; i += 8 {
		if i+8 > n {
			i = n - 8
		}
		if !sameLayoutWord(load64(a, i), load64(b, i)) {
			return false
		}
		if i+8 == n {
			return true
		}
	}
}

func sameLayoutWord(x, y uint64) bool {
	if (x|y)&hiBits != 0 {
		return false
	}
	letters, digits := asciiLetters(x), asciiDigits(x)
	if letters != asciiLetters(y) || digits != asciiDigits(y) {
		return false
	}
	alnum := (letters | digits) >> 7 * 0xff // 0xff in each letter or digit byte
	return (x^y)&^alnum == 0
}

// load64 reads the eight bytes of v from i on, little-endian.
func load64(v string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(v[i:]), 8))
}

// coarsen derives the coarse signature from the fine one: each sequence of
// "A+" and "9+" tokens becomes one "X+". ('A' and '9' are never literal, so
// each is a token with the '+' that follows it.)
func coarsen(coarse, fine []byte) []byte {
	x := false
	for i := 0; i < len(fine); i++ {
		if b := fine[i]; b == clsLetter || b == clsDigit {
			i++
			if !x {
				coarse = append(coarse, 'X', '+')
				x = true
			}
			continue
		}
		coarse = append(coarse, fine[i])
		x = false
	}
	return coarse
}

func truncSig(s []byte) []byte {
	if len(s) <= maxSigLen {
		return s
	}
	cut := maxSigLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return append(s[:cut], "…"...)
}

// Signatures returns the fine and coarse format signatures of v (see the
// package documentation).
func Signatures(v string) (fine, coarse string) {
	f, c, _, _ := shape(nil, nil, v)
	return string(f), string(c)
}

// MatchesFormat reports whether v has the given format signature, at
// whichever granularity the signature was taken (Column.Format is one or the
// other).
func MatchesFormat(format, v string) bool {
	f, c := Signatures(v)
	return f == format || c == format
}
