package suggestions

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dqs/dqs/suggest"
)

// Scores add up one way of applying the suggestions over the corpus. A
// changed cell is a true positive when it now equals the clean value, a
// false positive otherwise; a removed row is a true positive when it was
// an injected duplicate. TP and FP are by step (type/strategy, the last
// step that changed the cell); Dirty and Fixed by dirt kind (a row for a
// duplicate, a cell otherwise).
type Scores struct {
	Steps        map[string]int
	TP, FP       map[string]int64
	Dirty, Fixed map[string]int64
	// Wrong are examples of false positives by step: column, dirty →
	// written (clean).
	Wrong map[string][]string
}

func newScores() *Scores {
	return &Scores{Steps: map[string]int{}, TP: map[string]int64{}, FP: map[string]int64{},
		Dirty: map[string]int64{}, Fixed: map[string]int64{}, Wrong: map[string][]string{}}
}

const maxWrong = 3

func (s *Scores) addExample(key, col, dirty, got, clean string) {
	if len(s.Wrong[key]) < maxWrong {
		s.Wrong[key] = append(s.Wrong[key], fmt.Sprintf("%s: %q → %q (clean %q)", col, dirty, got, clean))
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// Precision is TP / (TP + FP); 1 when nothing was changed.
func (s *Scores) Precision() float64 {
	tp, fp := sum(s.TP), sum(s.FP)
	if tp+fp == 0 {
		return 1
	}
	return float64(tp) / float64(tp+fp)
}

// Recall is the share of the dirty cells and rows made right.
func (s *Scores) Recall() float64 {
	d := sum(s.Dirty)
	if d == 0 {
		return 1
	}
	return float64(sum(s.Fixed)) / float64(d)
}

// Counts are one file's figures.
type Counts struct{ TP, FP, FN int64 }

// FileResult is one corpus file's outcome.
type FileResult struct {
	Name, Note   string
	Suggestions  []suggest.Suggestion
	Trusted      int
	TrustedScore Counts
	AllScore     Counts
}

// Report is the outcome of Evaluate.
type Report struct {
	Threshold    float64
	Files        []FileResult
	Trusted, All *Scores
}

// Failures lists the missed targets: precision of the steps at the
// threshold or above, and their recall.
func (r Report) Failures() []string {
	if len(r.Files) == 0 || r.Trusted == nil {
		return []string{"correction suggestions: the corpus is empty"}
	}
	var out []string
	if p := r.Trusted.Precision(); p < TargetPrecision {
		out = append(out, fmt.Sprintf("correction suggestions: precision %.3f of the steps at confidence ≥ %.1f, below the %.2f target", p, r.Threshold, TargetPrecision))
	}
	if rc := r.Trusted.Recall(); rc < TargetRecall {
		out = append(out, fmt.Sprintf("correction suggestions: recall %.3f of the steps at confidence ≥ %.1f, below the %.2f target", rc, r.Threshold, TargetRecall))
	}
	return out
}

// Print writes the tables: per step type the steps, cells changed right
// and wrong and precision, per type the dirt it is meant to fix and its
// recall, and the totals, for the trusted steps, then for every
// suggestion.
func (r Report) Print(w io.Writer) {
	n := 0
	for _, f := range r.Files {
		n += len(f.Suggestions)
	}
	fmt.Fprintf(w, "Correction suggestions on %d dirty files with their clean versions (%d suggestions)\n", len(r.Files), n)
	r.table(w, fmt.Sprintf("Steps at confidence ≥ %.1f (applied on their own)", r.Threshold), r.Trusted, true)
	fmt.Fprintln(w)
	r.table(w, "Every suggestion, whatever its confidence (for information)", r.All, false)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Per file (steps ≥ %.1f of all; cells and rows right, wrong, missed)\n", r.Threshold)
	for _, f := range r.Files {
		c := f.TrustedScore
		fmt.Fprintf(w, "  %-28s %2d of %2d steps  %4d right %3d wrong %4d missed\n", f.Name, f.Trusted, len(f.Suggestions), c.TP, c.FP, c.FN)
	}
}

func (r Report) table(w io.Writer, title string, s *Scores, targets bool) {
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "  %-26s %5s %7s %6s %9s %7s %7s %7s\n", "step", "steps", "right", "wrong", "precision", "dirty", "fixed", "recall")
	keys := map[string]bool{}
	for k := range s.Steps {
		keys[k] = true
	}
	for _, k := range expected {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		var dirty, fixed int64
		for kind, want := range expected {
			if want == k {
				dirty += s.Dirty[kind]
				fixed += s.Fixed[kind]
			}
		}
		fmt.Fprintf(w, "  %-26s %5d %7d %6d %9s %7d %7d %7s\n", k, s.Steps[k], s.TP[k], s.FP[k], ratio(s.TP[k], s.TP[k]+s.FP[k]), dirty, fixed, ratio(fixed, dirty))
	}
	suffixP, suffixR := "", ""
	if targets {
		suffixP = fmt.Sprintf("  (target ≥ %.2f)", TargetPrecision)
		suffixR = fmt.Sprintf("  (target ≥ %.2f)", TargetRecall)
	}
	fmt.Fprintf(w, "  %-26s %5s %7d %6d %9.3f%s\n", "precision", "", sum(s.TP), sum(s.FP), s.Precision(), suffixP)
	fmt.Fprintf(w, "  %-26s %5s %7d %6s %9.3f%s\n", "recall", "", sum(s.Fixed), fmt.Sprintf("/%d", sum(s.Dirty)), s.Recall(), suffixR)
	fmt.Fprintf(w, "  recall by dirt kind:")
	kinds := sortedKinds(s.Dirty)
	for _, k := range kinds {
		fmt.Fprintf(w, " %s %d/%d", k, s.Fixed[k], s.Dirty[k])
	}
	fmt.Fprintln(w)
	var wrong []string
	for _, k := range names {
		for _, e := range s.Wrong[k] {
			wrong = append(wrong, k+" "+e)
		}
	}
	if len(wrong) > 0 {
		fmt.Fprintf(w, "  wrong changes, e.g.:\n    %s\n", strings.Join(wrong, "\n    "))
	}
}

func sortedKinds(m map[string]int64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func ratio(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}
