package profile

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// referenceShape is the fine signature written rune by rune, straight from
// the package documentation: the oracle for shape's one-pass scanner (whose
// coarse signature must be coarsen's of the fine one).
func referenceShape(v string) (sig string, runes int, blank bool) {
	var b strings.Builder
	blank = true
	prev := byte(0xff)
	if len(v) > 1 && (v[0] == '-' || v[0] == '+') && v[1] >= '0' && v[1] <= '9' {
		v, runes, blank = v[1:], 1, false
	}
	for i, r := range v {
		runes++
		cls := clsOther
		switch {
		case r < utf8.RuneSelf && classTab[r] != clsOther:
			cls = classTab[r]
		case r >= utf8.RuneSelf && unicode.IsLetter(r):
			cls = clsLetter
		case r >= utf8.RuneSelf && unicode.IsDigit(r):
			cls = clsDigit
		case r >= utf8.RuneSelf && unicode.IsSpace(r):
			cls = clsSpace
		}
		if cls != clsSpace {
			blank = false
		}
		if b.Len() > maxSigLen {
			continue // cut: only runes and blankness are still counted
		}
		switch {
		case cls == clsOther: // as written, invalid UTF-8 included
			_, size := utf8.DecodeRuneInString(v[i:])
			b.WriteString(v[i : i+size])
		case cls == prev:
		case cls == clsSpace:
			b.WriteByte(' ')
		default:
			b.WriteByte(cls)
			b.WriteByte('+')
		}
		prev = cls
	}
	return string(truncSig([]byte(b.String()))), runes, blank
}

// TestShapeMatchesReference compares shape with referenceShape and coarsen on
// random strings built from pieces that end runs at every offset from an
// eight-byte word's boundary: ASCII letters and digits, their neighbours in
// the byte table ('@', '[', '`', '{', '/', ':'), spaces, multi-byte letters,
// digits and symbols, and invalid UTF-8.
func TestShapeMatchesReference(t *testing.T) {
	pieces := []string{
		"a", "Z", "m", "q", "0", "9", "5", "@", "[", "`", "{", "/", ":", " ", "\t", "-", "+", ".",
		"é", "Ü", "ß", "٣", "\u00a0", "€", "\xff", "\xc3", "\x80", "\x00", "\x7f",
		"abcdefgh", "ABCDEFGHIJKLMNOP", "0123456789", "12345678901234567890",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	fine, coarse := make([]byte, 0, maxSigLen+8), make([]byte, 0, maxSigLen+8)
	for n := range 200_000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		v := sb.String()
		if n%7 == 0 { // runs longer than the signature bound
			v = strings.Repeat(v, 4)
		}
		var runes int
		var blank bool
		fine, coarse, runes, blank = shape(fine[:0], coarse[:0], v)
		wantFine, wantRunes, wantBlank := referenceShape(v)
		wantCoarse := coarsen(nil, []byte(wantFine))
		if string(fine) != wantFine || string(coarse) != string(wantCoarse) || runes != wantRunes || blank != wantBlank {
			t.Fatalf("shape(%q) = %q, %q, %d, %v; want %q, %q, %d, %v", v, fine, coarse, runes, blank, wantFine, wantCoarse, wantRunes, wantBlank)
		}
	}
}

// TestByteClassWords checks the eight-byte class tests on every byte value
// in every position of the word.
func TestByteClassWords(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			w := uint64(0x2e2e2e2e2e2e2e2e) // '.' elsewhere: neither class
			w = w&^(0xff<<(8*pos)) | uint64(c)<<(8*pos)
			bit := uint64(0x80) << (8 * pos)
			isLetter := c < 0x80 && classTab[c] == clsLetter
			isDigit := c < 0x80 && classTab[c] == clsDigit
			if got := asciiLetters(w); (got == bit) != isLetter || (got != 0 && got != bit) {
				t.Errorf("asciiLetters(byte %#x at %d) = %#x", c, pos, got)
			}
			if got := asciiDigits(w); (got == bit) != isDigit || (got != 0 && got != bit) {
				t.Errorf("asciiDigits(byte %#x at %d) = %#x", c, pos, got)
			}
		}
	}
}

// TestSameLayout checks sameLayout on chosen pairs, and that whenever it
// holds the two values really have the same signatures and one rune per
// byte (random pairs of one length, short and long, differing in a few
// bytes).
func TestSameLayout(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"2021-04-06T14:27:04Z", "1999-12-31T23:59:59Z", true},
		{"2021-04-06T14:27:04Z", "2021-04-06 14:27:04Z", false},
		{"2021-04-06T14:27:04Z", "2021/04/06T14:27:04Z", false},
		{"AB-1234", "xy-9876", true},
		{"AB-1234", "A1-1234", false},
		{"+1453", "+9999", true},
		{"+1453", "-1453", false},
		{"", "", true},
		{"ab", "abc", false},
		{"Zoë", "Zoë", false}, // not ASCII: left to shape
		{"12345678\xff", "12345678\xff", false},
		{"a b", "a\tb", false},
	} {
		if got := sameLayout(tc.a, tc.b); got != tc.want {
			t.Errorf("sameLayout(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	alphabet := "aZ09 -.:@[`{/\t\x7f"
	rng := rand.New(rand.NewPCG(3, 4))
	hits := 0
	for range 200_000 {
		n := rng.IntN(30)
		a := make([]byte, n)
		for i := range a {
			a[i] = alphabet[rng.IntN(len(alphabet))]
		}
		b := append([]byte(nil), a...)
		for range rng.IntN(3) {
			if n > 0 {
				b[rng.IntN(n)] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		if !sameLayout(string(a), string(b)) {
			continue
		}
		hits++
		fa, ca, ra, ba := shape(nil, nil, string(a))
		fb, cb, rb, bb := shape(nil, nil, string(b))
		if string(fa) != string(fb) || string(ca) != string(cb) || ra != rb || ba != bb || rb != n {
			t.Fatalf("sameLayout(%q, %q) but shapes %q %q %d %v / %q %q %d %v", a, b, fa, ca, ra, ba, fb, cb, rb, bb)
		}
	}
	if hits < 50_000 {
		t.Fatalf("only %d pairs had the same layout: the check above proves little", hits)
	}
}
