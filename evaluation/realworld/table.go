package realworld

import (
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/dqs/dqs/evaluation/columns"
	"github.com/dqs/dqs/internal/colgen"
)

// corpusSeed fixes the corpus; each column draws from its own generator
// seeded with it and the column's id, so editing one column leaves the
// others as they were.
const corpusSeed = 20261126

type gen struct{ *colgen.Gen }

func newGen(id string) *gen {
	h := fnv.New64a()
	h.Write([]byte(id))
	return &gen{colgen.New(rand.New(rand.NewPCG(corpusSeed, h.Sum64())))}
}

// mess is how an export soils a column: a share of empty cells, a share of
// placeholders typed or written by a tool, and a share re-cased.
type mess struct {
	empty, placeholder, recase float64
}

var (
	tidy    = mess{empty: 0.01}
	export  = mess{empty: 0.05, placeholder: 0.02, recase: 0.01}
	scraped = mess{empty: 0.12, placeholder: 0.05, recase: 0.03}
)

// placeholders are what exports write for a missing value.
var placeholders = []string{"N/A", "n/a", "NaN", "nan", "null", "NULL", "-", "?", "None", "(blank)", "#N/A", "unknown", "TBD", "not given"}

// tableCol is one column of a table: its header as the file writes it, the
// kind of value its generator emits (which fixes its label) and its mess.
type tableCol struct {
	header string
	kind   kind
	mess   mess
	note   string
}

// table is one exported file.
type table struct {
	name   string // short id prefix
	locale string
	rows   int
	cols   []tableCol
}

func c(header string, k kind, m mess) tableCol { return tableCol{header: header, kind: k, mess: m} }

func (tc tableCol) why(note string) tableCol { tc.note = note; return tc }

// build generates one column of t.
func (t table) build(tc tableCol) columns.Case {
	id := t.name + "/" + slug(tc.header)
	g := newGen(id)
	cs := columns.Case{ID: id, Name: tc.header, Label: tc.kind.label, Locale: t.locale, Note: tc.note,
		Values: make([]*string, t.rows)}
	for i := range cs.Values {
		cs.Values[i] = g.soil(tc.mess, tc.kind.value(g))
	}
	return cs
}

// soil applies m to one clean value; nil is a null cell.
func (g *gen) soil(m mess, v string) *string {
	switch {
	case g.Chance(m.empty):
		return nil
	case g.Chance(m.placeholder):
		v = g.Pick(placeholders...)
	case g.Chance(m.recase):
		if g.Chance(0.5) {
			v = strings.ToUpper(v)
		} else {
			v = strings.ToLower(v)
		}
	}
	return &v
}

// slug makes a header an id part: lower-case letters and digits, other runs
// as one dash.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}
