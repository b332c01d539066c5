package columns

// spec describes one corpus column: what it is, what it is called and how
// its values are made.
type spec struct {
	id, name, label, locale, note string
	n                             int // number of rows; 0 draws a size
	dirt                          dirt
	tests                         []string // test values typed in by developers and testers
	value                         func(g *gen) string
}

func col(id, name, label, locale string, d dirt, value func(g *gen) string) spec {
	return spec{id: id, name: name, label: label, locale: locale, dirt: d, value: value}
}

func (s spec) rows(n int) spec             { s.n = n; return s }
func (s spec) why(note string) spec        { s.note = note; return s }
func (s spec) testValues(v ...string) spec { s.tests = v; return s }

// build generates the column.
func (s spec) build() Case {
	g := newGen(s.id)
	n := s.n
	if n == 0 {
		n = g.size()
	}
	c := Case{ID: s.id, Name: s.name, Label: s.label, Locale: s.locale, Note: s.note, Values: make([]*string, n)}
	for i := range c.Values {
		c.Values[i] = g.apply(s.dirt, s.value(g), s.tests)
	}
	return c
}

// oneOf returns a value function picking uniformly among fs.
func oneOf(fs ...func(g *gen) string) func(g *gen) string {
	return func(g *gen) string { return fs[g.IntN(len(fs))](g) }
}

// fixed returns a value function that picks from vs with Zipf weights, as
// categorical answers are distributed.
func fixed(vs ...string) func(g *gen) string {
	return func(g *gen) string { return g.Zipf(vs) }
}
