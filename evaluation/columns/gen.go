package columns

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// corpusSeed fixes the corpus. Each case draws from its own generator seeded
// with corpusSeed and the case id, so adding or editing one case leaves every
// other case byte-for-byte the same.
const corpusSeed = 20240917

// gen is a deterministic source of values for one case.
type gen struct{ r *rand.Rand }

func newGen(id string) *gen {
	h := fnv.New64a()
	h.Write([]byte(id))
	s := h.Sum64()
	return &gen{rand.New(rand.NewPCG(corpusSeed, s))}
}

func (g *gen) intn(n int) int           { return g.r.IntN(n) }
func (g *gen) chance(p float64) bool    { return g.r.Float64() < p }
func (g *gen) between(lo, hi int) int   { return lo + g.r.IntN(hi-lo+1) }
func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *gen) float(lo, hi float64) float64 {
	return lo + g.r.Float64()*(hi-lo)
}

// zipf picks from xs with weights falling like 1/(i+1), the way real
// categories, given names and surnames are distributed: a few frequent ones
// and a long tail.
func (g *gen) zipf(xs []string) string {
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

func (g *gen) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}

func (g *gen) chars(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	lowerHex = "0123456789abcdef"
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperAN  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b64url   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	bcryptAB = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

// date returns a random day between the first of January of y0 and the last
// of December of y1.
func (g *gen) date(y0, y1 int) time.Time {
	t0 := time.Date(y0, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := time.Date(y1, 12, 31, 0, 0, 0, 0, time.UTC)
	return t0.AddDate(0, 0, g.r.IntN(int(t1.Sub(t0).Hours()/24)+1))
}

// instant returns a random second between the start of y0 and the end of y1.
func (g *gen) instant(y0, y1 int) time.Time {
	return g.date(y0, y1).Add(time.Duration(g.r.IntN(86400)) * time.Second)
}

func num(f float64, decimals int) string { return strconv.FormatFloat(f, 'f', decimals, 64) }

// group splits s into groups of the given sizes joined by sep; a trailing
// remainder forms a last group.
func group(s, sep string, sizes ...int) string {
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

// every4 groups s in blocks of four (IBANs, card numbers).
func every4(s, sep string) string {
	var parts []string
	for i := 0; i < len(s); i += 4 {
		parts = append(parts, s[i:min(i+4, len(s))])
	}
	return strings.Join(parts, sep)
}

// ---------------------------------------------------------------------------
// Dirt

// dirt describes how a column is soiled: shares of the rows that become null,
// blank, a junk token, a test value, a value of the wrong type, or that get
// padded, re-cased or a typo. The shares are independent draws per row.
type dirt struct {
	null, blank, junk, test, wrong, pad, recase, typo float64
}

// Dirt levels used by the cases.
var (
	clean    = dirt{null: 0.01, pad: 0.01}
	light    = dirt{null: 0.04, blank: 0.01, junk: 0.01, test: 0.005, wrong: 0.005, pad: 0.02, recase: 0.01, typo: 0.005}
	typical  = dirt{null: 0.08, blank: 0.02, junk: 0.03, test: 0.01, wrong: 0.01, pad: 0.03, recase: 0.02, typo: 0.01}
	heavy    = dirt{null: 0.25, blank: 0.05, junk: 0.06, test: 0.02, wrong: 0.02, pad: 0.06, recase: 0.04, typo: 0.02}
	sparse   = dirt{null: 0.60, blank: 0.05, junk: 0.02, pad: 0.02, typo: 0.01}
	noTypos  = func(d dirt) dirt { d.typo = 0; return d }
	noRecase = func(d dirt) dirt { d.recase = 0; return d }
)

// junkTokens are what people type when they have no value.
var junkTokens = []string{"n/a", "N/A", "NA", "unknown", "Unknown", "-", "--", "none", "None", "NULL", "null",
	"TBD", "tbd", "?", "xxx", "missing", "not provided", "#N/A", ".", "0", "nil", "ej angivet", "keine Angabe",
	"ei tiedossa", "inconnu", "see notes"}

// wrongTypeValues are values of some other kind that end up in a column by
// mistake (shifted CSV columns, copy-paste).
var wrongTypeValues = []string{"2023-04-01", "12.50", "42", "true", "Stockholm", "see attached", "1/1/1900",
	"0.0", "#REF!", "Lorem ipsum", "N", "9999", "Sweden", "Deutschland", "yes"}

// apply turns one clean value into what ends up in the file. A nil result is
// a null cell.
func (g *gen) apply(d dirt, v string, tests []string) *string {
	switch {
	case g.chance(d.null):
		return nil
	case g.chance(d.blank):
		v = g.pick("", " ", "  ")
		return &v
	case g.chance(d.junk):
		v = g.pick(junkTokens...)
		return &v
	case len(tests) > 0 && g.chance(d.test):
		v = g.pick(tests...)
		return &v
	case g.chance(d.wrong):
		v = g.pick(wrongTypeValues...)
		return &v
	}
	if g.chance(d.typo) {
		v = g.typo(v)
	}
	if g.chance(d.recase) {
		if g.chance(0.5) {
			v = strings.ToUpper(v)
		} else {
			v = strings.ToLower(v)
		}
	}
	if g.chance(d.pad) {
		v = g.pick(" ", "  ", "") + v + g.pick(" ", "", "\t", "  ")
	}
	return &v
}

// typo makes one keyboard mistake: a dropped, doubled, swapped or replaced
// character (digits are replaced by digits, letters by letters).
func (g *gen) typo(v string) string {
	rs := []rune(v)
	if len(rs) < 3 {
		return v
	}
	i := g.between(1, len(rs)-2)
	switch g.intn(4) {
	case 0:
		rs = append(rs[:i], rs[i+1:]...)
	case 1:
		rs = append(rs[:i+1], rs[i:]...)
	case 2:
		rs[i], rs[i+1] = rs[i+1], rs[i]
	default:
		switch {
		case unicode.IsDigit(rs[i]):
			rs[i] = rune('0' + (int(rs[i]-'0')+g.between(1, 9))%10)
		case unicode.IsLetter(rs[i]):
			rs[i] = rune("abcdefghijklmnopqrstuvwxyz"[g.intn(26)])
		}
	}
	return string(rs)
}

// size draws a column length: about one column in six is small (15–30
// values), the others 100–1000, skewed towards the low end.
func (g *gen) size() int {
	if g.chance(0.16) {
		return g.between(15, 30)
	}
	x := g.r.Float64()
	return 100 + int(900*x*x)
}

// ---------------------------------------------------------------------------
// Text helpers

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// asciiFold spells a name the way e-mail local parts usually do: lower
// case, accents dropped (NFD, then the combining marks removed), the letters
// without a decomposition transliterated, and no spaces, apostrophes or
// hyphens.
func asciiFold(s string) string {
	s = norm.NFD.String(strings.ToLower(s))
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r), r == ' ', r == '\'', r == '’', r == '-':
		case foldRunes[r] != "":
			b.WriteString(foldRunes[r])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var foldRunes = map[rune]string{'ø': "o", 'æ': "ae", 'ß': "ss", 'ł': "l", 'đ': "d", 'ı': "i", 'œ': "oe", 'þ': "th"}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
