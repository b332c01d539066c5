package columns

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/dqs/dqs/internal/colgen"
)

// corpusSeed fixes the corpus. Each case draws from its own generator seeded
// with corpusSeed and the case id, so adding or editing one case leaves every
// other case byte-for-byte the same.
const corpusSeed = 20240917

// gen is a deterministic source of values for one case: colgen's draws and
// value generators, plus the corpus's own (dirt, cultures, countries).
type gen struct{ *colgen.Gen }

func newGen(id string) *gen {
	h := fnv.New64a()
	h.Write([]byte(id))
	s := h.Sum64()
	return &gen{colgen.New(rand.New(rand.NewPCG(corpusSeed, s)))}
}

func num(f float64, decimals int) string { return strconv.FormatFloat(f, 'f', decimals, 64) }

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
	case g.Chance(d.null):
		return nil
	case g.Chance(d.blank):
		v = g.Pick("", " ", "  ")
		return &v
	case g.Chance(d.junk):
		v = g.Pick(junkTokens...)
		return &v
	case len(tests) > 0 && g.Chance(d.test):
		v = g.Pick(tests...)
		return &v
	case g.Chance(d.wrong):
		v = g.Pick(wrongTypeValues...)
		return &v
	}
	if g.Chance(d.typo) {
		v = g.typo(v)
	}
	if g.Chance(d.recase) {
		if g.Chance(0.5) {
			v = strings.ToUpper(v)
		} else {
			v = strings.ToLower(v)
		}
	}
	if g.Chance(d.pad) {
		v = g.Pick(" ", "  ", "") + v + g.Pick(" ", "", "\t", "  ")
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
	i := g.Between(1, len(rs)-2)
	switch g.IntN(4) {
	case 0:
		rs = append(rs[:i], rs[i+1:]...)
	case 1:
		rs = append(rs[:i+1], rs[i:]...)
	case 2:
		rs[i], rs[i+1] = rs[i+1], rs[i]
	default:
		switch {
		case unicode.IsDigit(rs[i]):
			rs[i] = rune('0' + (int(rs[i]-'0')+g.Between(1, 9))%10)
		case unicode.IsLetter(rs[i]):
			rs[i] = rune("abcdefghijklmnopqrstuvwxyz"[g.IntN(26)])
		}
	}
	return string(rs)
}

// size draws a column length: about one column in six is small (15–30
// values), the others 100–1000, skewed towards the low end.
func (g *gen) size() int {
	if g.Chance(0.16) {
		return g.Between(15, 30)
	}
	x := g.Float64()
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
