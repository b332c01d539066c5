package suggest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/records"
)

// scan is one Suggest run: what the analysis says of each column, and what
// the one pass over the rows counted.
type scan struct {
	res  *analysis.Result
	opt  Options
	cols []column
	// fileColumns are the reader's columns once the rows are read (a JSON
	// reader's grow while it reads), which the steps are validated on.
	fileColumns []string
	mem         *budget
	pairs       []*pairTable
	pairEntries *budget
	rows        int64
}

// column is one column of the analysis and what the pass counted of it.
type column struct {
	name string
	a    *analysis.Column
	pos  int // index in the reader's columns; -1 until the reader has it

	nonNull  int64 // values that are not nulls, blanks or null tokens
	padded   int64 // of them, values with leading or trailing white space
	paddedEx []string
	last     int32 // the value id of the current row's cell; -1 for none

	values *valueTable // nil when not collected (or given up)
	email  *emailScan
	phone  *phoneScan
	dates  *dateScan
	dec    *decimalScan

	// What the analysis makes of the column (plan.go).
	caseOK, clusterOK, depA, depB bool

	// What the rule engine proposed, which the correction engine builds
	// on: whether a step trims the column, and the case step's mapping
	// (trimmed value → its group's spelling).
	trims   bool
	caseMap map[string]string
	// final is each raw value's form once every suggested step of the
	// column ran, for the dependencies (cluster.go).
	final map[string]string
}

func newScan(res *analysis.Result, opt Options) *scan {
	s := &scan{res: res, opt: opt, mem: &budget{left: opt.ValueMemory}, pairEntries: &budget{left: int64(opt.MaxPairEntries)}}
	s.cols = make([]column, len(res.Columns))
	for i := range res.Columns {
		c := &s.cols[i]
		c.name, c.a, c.pos, c.last = res.Columns[i].Name, &res.Columns[i], -1, -1
		s.plan(c)
	}
	s.planPairs()
	return s
}

// read makes the one pass over the rows.
func (s *scan) read(ctx context.Context, open func() (records.Reader, error)) (err error) {
	r, err := open()
	if err != nil {
		return fmt.Errorf("suggest: opening the file: %w", err)
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	bound := -1
	for n := 0; ; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("suggest: reading row %d: %w", n+1, err)
		}
		if cols := r.Columns(); len(cols) != bound {
			s.bind(cols)
			bound = len(cols)
		}
		s.rows++
		for i := range s.cols {
			c := &s.cols[i]
			c.last = -1
			if c.pos < 0 || c.pos >= len(rec.Values) {
				continue
			}
			null := c.pos < len(rec.Null) && rec.Null[c.pos]
			s.add(c, rec.Values[c.pos], null)
		}
		s.countPairs()
	}
	s.fileColumns = slices.Clone(r.Columns())
	return nil
}

// bind finds each analysed column among the reader's columns.
func (s *scan) bind(names []string) {
	at := make(map[string]int, len(names))
	for i, n := range names {
		if _, dup := at[n]; !dup {
			at[n] = i
		}
	}
	for i := range s.cols {
		if p, ok := at[s.cols[i].name]; ok {
			s.cols[i].pos = p
		}
	}
}

// add counts one cell of c.
func (s *scan) add(c *column, v string, null bool) {
	if null || corrections.IsBlank(v) || s.opt.NullTokens.Match(v) {
		return
	}
	c.nonNull++
	t := strings.TrimSpace(v)
	if t != v {
		c.padded++
		c.paddedEx = addExample(c.paddedEx, v)
	}
	if c.values != nil {
		id, ok := c.values.add(v, s.opt.MaxDistinct, s.mem)
		if !ok {
			s.dropValues(c)
		} else {
			c.last = id
		}
	}
	if c.email != nil {
		c.email.add(v)
	}
	if c.phone != nil {
		c.phone.add(t, s.opt.MaxPhoneChecks)
	}
	if c.dates != nil {
		c.dates.add(t)
	}
	if c.dec != nil {
		c.dec.add(t)
	}
}

// dropValues gives up c's values: too many, or past the memory budget.
// The column is then neither case-grouped, clustered nor in a dependency.
func (s *scan) dropValues(c *column) {
	s.mem.left += c.values.bytes
	c.values = nil
	c.last = -1
	c.caseOK, c.clusterOK = false, false
	for _, p := range s.pairs {
		if &s.cols[p.a] == c || &s.cols[p.b] == c {
			p.drop(s.pairEntries)
		}
	}
}

const maxExamples = 3

func addExample(ex []string, v string) []string {
	if len(ex) < maxExamples && !slices.Contains(ex, v) {
		ex = append(ex, strings.Clone(v))
	}
	return ex
}
