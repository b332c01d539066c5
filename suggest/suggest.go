package suggest

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/records"
)

// The engines a suggestion comes from (Suggestion.Engine).
const (
	EngineRule       = "rule"       // quality issues of the profile → steps (whitespace, case, date formats, e-mail, phone, decimal point, duplicates, nulls in a mostly complete numeric column)
	EngineCorrection = "correction" // data-driven value fixes with a confident strategy: standardisation clusters (format_fix standardize) and dependency violations (zip → city)
)

// Suggestion is one proposed correction step, with what it answers and how
// sure the engine is that every change it makes is right.
type Suggestion struct {
	Engine         string
	CorrectionType string         // a corrections step type
	Column         string         // "" for file-level steps (dedupe)
	Strategy       string         // the step's strategy; "" for custom steps
	Params         map[string]any // JSON-encodable; corrections.Step{Type,Column,Strategy,Params}.Validate(columns) accepts it
	Confidence     float64        // raw, in [0,1], before any calibration
	Explanation    string         // plain language: what is wrong, how many values, what the step does, why this confidence
	Issue          string         // the quality issue kind it answers, "" if none
	// Changes is the number of cells (rows, for dedupe) the step is
	// expected to change, as counted in the pass over the file
	// (extrapolated for phone numbers past MaxPhoneChecks).
	Changes int64
}

// Step is the corrections step the suggestion proposes.
func (s Suggestion) Step() corrections.Step {
	return corrections.Step{Type: s.CorrectionType, Column: s.Column, Strategy: s.Strategy, Params: s.Params}
}

// Options tune Suggest. Zero values take the defaults.
type Options struct {
	// NullTokens are the values that count as nulls; nil means the
	// profile's defaults (as corrections.Options.NullTokens).
	NullTokens *profile.NullTokens
	// MaxDistinct is the number of distinct values collected per column
	// for clustering, case groups and dependencies (default 100,000); a
	// column with more is not clustered.
	MaxDistinct int
	// MaxMapping is the most variants one standardize step maps (default
	// 10,000, what the step accepts).
	MaxMapping int
	// ValueMemory bounds the bytes the collected values of all columns
	// take together (default 256 MiB); a column whose values would pass it
	// stops collecting and is not clustered.
	ValueMemory int64
	// MaxPairColumns bounds the columns examined for dependencies (default
	// 12, so at most 66 column pairs); MaxPairs bounds the distinct value
	// pairs counted for one column pair (default 50,000) and
	// MaxPairEntries those of all pairs together (default 2,000,000).
	MaxPairColumns int
	MaxPairs       int
	MaxPairEntries int
	// MaxPhoneChecks bounds the phone numbers parsed per column (default
	// 20,000 distinct values); counts past it are extrapolated.
	MaxPhoneChecks int
	// StrongConfidence splits the mappings of one column: those at least
	// this confident go in one step, the others in a second, weaker one,
	// so that a user trusting steps from this confidence gets the strong
	// mappings without the weak (default 0.8, the default trust
	// threshold).
	StrongConfidence float64
	// MinConfidence drops the mappings and fixes less confident than this
	// (default 0.3): they would only be noise in a list of suggestions.
	MinConfidence float64
}

// Defaults of Options.
const (
	DefaultMaxDistinct      = 100_000
	DefaultMaxMapping       = 10_000
	DefaultValueMemory      = 256 << 20
	DefaultMaxPairColumns   = 12
	DefaultMaxPairs         = 50_000
	DefaultMaxPairEntries   = 2_000_000
	DefaultMaxPhoneChecks   = 20_000
	DefaultStrongConfidence = 0.8
	DefaultMinConfidence    = 0.3
)

func (o Options) withDefaults() Options {
	if o.NullTokens == nil {
		o.NullTokens = profile.DefaultNulls
	}
	if o.MaxDistinct <= 0 {
		o.MaxDistinct = DefaultMaxDistinct
	}
	if o.MaxMapping <= 0 {
		o.MaxMapping = DefaultMaxMapping
	}
	o.MaxMapping = min(o.MaxMapping, DefaultMaxMapping)
	if o.ValueMemory <= 0 {
		o.ValueMemory = DefaultValueMemory
	}
	if o.MaxPairColumns <= 0 {
		o.MaxPairColumns = DefaultMaxPairColumns
	}
	if o.MaxPairs <= 0 {
		o.MaxPairs = DefaultMaxPairs
	}
	if o.MaxPairEntries <= 0 {
		o.MaxPairEntries = DefaultMaxPairEntries
	}
	if o.MaxPhoneChecks <= 0 {
		o.MaxPhoneChecks = DefaultMaxPhoneChecks
	}
	if !(o.StrongConfidence > 0 && o.StrongConfidence <= 1) {
		o.StrongConfidence = DefaultStrongConfidence
	}
	if !(o.MinConfidence > 0 && o.MinConfidence <= 1) {
		o.MinConfidence = DefaultMinConfidence
	}
	return o
}

// Suggest reads the file's rows once (open returns a fresh reader from the
// first row; Suggest closes what it opens) and proposes steps in a
// deterministic order: file-level first, then column order, then engine
// (rule before correction), and within one column in the order the steps
// are meant to run (trim before case groups, case groups before clusters,
// clusters before dependency fixes: each step's mapping is keyed on the
// values as the steps before it leave them, and on the raw values too, so
// that it also serves alone). Every suggestion is validated against the
// file's columns; one that does not validate is a bug and is dropped.
func Suggest(ctx context.Context, res *analysis.Result, open func() (records.Reader, error), opt Options) ([]Suggestion, error) {
	if res == nil {
		return nil, errors.New("suggest: no analysis")
	}
	if open == nil {
		return nil, errors.New("suggest: no way to open the file")
	}
	opt = opt.withDefaults()
	s := newScan(res, opt)
	if err := s.read(ctx, open); err != nil {
		return nil, err
	}
	var out []Suggestion
	out = append(out, duplicateRows(res)...)
	for i := range s.cols {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, s.columnRules(i)...)
	}
	corr, err := s.corrections(ctx)
	if err != nil {
		return nil, err
	}
	out = append(out, corr...)
	out = s.valid(out)
	order := make(map[string]int, len(res.Columns))
	for i, c := range res.Columns {
		order[c.Name] = i + 1 // file-level ("") is 0
	}
	engine := map[string]int{EngineRule: 0, EngineCorrection: 1}
	// Stable: within one column and engine, the rules' own order holds.
	slices.SortStableFunc(out, func(a, b Suggestion) int {
		if c := cmp.Compare(order[a.Column], order[b.Column]); c != 0 {
			return c
		}
		return cmp.Compare(engine[a.Engine], engine[b.Engine])
	})
	return out, nil
}

// valid keeps the suggestions the corrections package accepts on the
// file's columns.
func (s *scan) valid(in []Suggestion) []Suggestion {
	out := in[:0]
	for _, sg := range in {
		if sg.Step().Validate(s.fileColumns) == nil {
			out = append(out, sg)
		}
	}
	return out
}
