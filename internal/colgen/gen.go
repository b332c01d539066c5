// Package colgen draws realistic column values (e-mail addresses, card
// numbers, IBANs, national identifiers, credentials, identifiers) from a
// seeded random source.
//
// It is shared by the classify tests and by the labelled evaluation corpus
// in evaluation/columns; it cannot live in either, because evaluation/columns
// imports classify and classify's in-package tests may not import it back.
// It depends on the standard library only, so that either may use it.
//
// Both users depend on the exact sequence of draws: the committed corpus
// must regenerate byte for byte, and the classify tests assert on columns
// generated from fixed seeds. A change to what any function here draws, or
// in which order, changes their data; where the two users want different
// shapes, the function takes the difference as a parameter.
package colgen

import (
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"time"
)

// Alphabets for Chars.
const (
	Upper      = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	Alnum      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	UpperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	LowerHex   = "0123456789abcdef"
	Base64URL  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	// BcryptBase64 is the alphabet of bcrypt and SHA-crypt salts and hashes.
	BcryptBase64 = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// Gen draws values from one random source. It is deterministic: the same
// source yields the same values. It is not safe for concurrent use.
type Gen struct{ r *rand.Rand }

// New returns a Gen drawing from r.
func New(r *rand.Rand) *Gen { return &Gen{r} }

// IntN returns a number in [0, n).
func (g *Gen) IntN(n int) int { return g.r.IntN(n) }

// Float64 returns a number in [0, 1).
func (g *Gen) Float64() float64 { return g.r.Float64() }

// Chance reports true with probability p.
func (g *Gen) Chance(p float64) bool { return g.r.Float64() < p }

// Float returns a number in [lo, hi).
func (g *Gen) Float(lo, hi float64) float64 { return lo + g.r.Float64()*(hi-lo) }

// Between returns a number in [lo, hi], both ends included.
func (g *Gen) Between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// Pick returns one of xs, uniformly. It draws even when xs has one element.
func (g *Gen) Pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// PickInt returns one of xs, uniformly.
func (g *Gen) PickInt(xs ...int) int { return xs[g.r.IntN(len(xs))] }

// Zipf picks from xs with weights falling like 1/(i+1), the way real
// categories, given names and surnames are distributed: a few frequent ones
// and a long tail.
func (g *Gen) Zipf(xs []string) string {
	total := 0.0
	for i := range xs {
		total += 1 / float64(i+1)
	}
	x := g.r.Float64() * total
	for i := range xs {
		x -= 1 / float64(i+1)
		if x <= 0 {
			return xs[i]
		}
	}
	return xs[len(xs)-1]
}

// Digits returns n random decimal digits.
func (g *Gen) Digits(n int) string { return g.Chars(n, "0123456789") }

// Chars returns n characters drawn from the single-byte alphabet.
func (g *Gen) Chars(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// Bytes returns n random bytes.
func (g *Gen) Bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return b
}

// HexString returns n lower-case hex digits (n even), drawn as n/2 bytes.
// That is a different sequence of draws from Chars(n, LowerHex).
func (g *Gen) HexString(n int) string { return hex.EncodeToString(g.Bytes(n / 2)) }

// Day returns a random day from first up to, but not including, end; both
// are midnights in UTC.
func (g *Gen) Day(first, end time.Time) time.Time {
	return first.AddDate(0, 0, g.r.IntN(int(end.Sub(first).Hours()/24)))
}

// Date returns a random day from 1 January of y0 to 31 December of y1, both
// included.
func (g *Gen) Date(y0, y1 int) time.Time {
	return g.Day(time.Date(y0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(y1+1, 1, 1, 0, 0, 0, 0, time.UTC))
}

// Instant returns a random second from the start of y0 to the end of y1.
func (g *Gen) Instant(y0, y1 int) time.Time {
	return g.Date(y0, y1).Add(time.Duration(g.r.IntN(86400)) * time.Second)
}

// Group splits s into groups of the given sizes joined by sep; a remainder
// beyond the sizes forms a last group.
func Group(s, sep string, sizes ...int) string {
	var parts []string
	i := 0
	for _, n := range sizes {
		if i+n > len(s) {
			break
		}
		parts = append(parts, s[i:i+n])
		i += n
	}
	if i < len(s) {
		parts = append(parts, s[i:])
	}
	return strings.Join(parts, sep)
}

// Every4 groups s in blocks of four joined by sep, the way IBANs and card
// numbers are written.
func Every4(s, sep string) string {
	var parts []string
	for i := 0; i < len(s); i += 4 {
		parts = append(parts, s[i:min(i+4, len(s))])
	}
	return strings.Join(parts, sep)
}
