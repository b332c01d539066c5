package columns

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
)

// Targets the classifier must meet on the corpus.
const (
	TargetMacroF1           = 0.95 // over the personal and special-category labels
	TargetFalsePositiveRate = 0.02 // non-personal columns given a personal label, at any confidence
	TargetConfidentAccuracy = 0.98 // personal predictions with confidence ≥ classify.AlertThreshold
)

// calibrationEdges bound the confidence buckets; the last bucket includes 1.
var calibrationEdges = []float64{0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1}

// Prediction is the classification of one corpus column next to its truth.
type Prediction struct {
	ID     string
	Name   string
	Truth  string
	Result classify.Result
}

func (p Prediction) correct() bool { return p.Result.Label == p.Truth }

// sensitive reports whether the prediction is a personal or special-category
// label.
func (p Prediction) sensitive() bool { return p.Result.Category != classify.CategoryNone }

// LabelScore is precision, recall and F1 of one label. A prediction is label
// L when Result.Label == L, whatever its confidence.
type LabelScore struct {
	Label     string
	Category  classify.GDPRCategory
	Support   int // columns whose truth is Label
	Predicted int // columns predicted as Label
	Correct   int // both
	Precision float64
	Recall    float64
	F1        float64
}

// Bucket is one confidence range of the personal and special-category
// predictions: [Lo, Hi), the last one [Lo, 1].
type Bucket struct {
	Lo, Hi   float64
	Count    int
	Correct  int
	Accuracy float64 // Correct / Count; NaN when empty
}

// Report is the evaluation of the classifier on a corpus.
type Report struct {
	Predictions []Prediction
	Labels      []LabelScore // every label of the corpus: personal, special, then the others
	MacroF1     float64      // mean F1 of the personal and special-category labels

	NonPersonal       int     // columns whose truth is not personal
	FalsePositives    int     // of those, predicted personal or special at any confidence
	FalsePositiveRate float64 // FalsePositives / NonPersonal

	Calibration       []Bucket
	Confident         int     // personal or special predictions with confidence ≥ classify.AlertThreshold
	ConfidentCorrect  int     // of those, with the right label
	ConfidentAccuracy float64 // ConfidentCorrect / Confident; NaN when none
}

// Evaluate classifies every case through the product's path — a profile of
// the column, then classify.Column on the profile's sample, as analysis.Run
// does — and scores the results.
func Evaluate(cases []Case) *Report {
	preds := make([]Prediction, len(cases))
	for i, c := range cases {
		preds[i] = Prediction{ID: c.ID, Name: c.Name, Truth: c.Label, Result: classifyCase(c)}
	}
	return newReport(preds)
}

func classifyCase(c Case) classify.Result {
	p := profile.New([]string{c.Name}, profile.Options{})
	values, null := make([]string, 1), make([]bool, 1)
	for _, v := range c.Values {
		values[0], null[0] = "", v == nil
		if v != nil {
			values[0] = *v
		}
		p.Add(values, null)
	}
	col := p.Result().Columns[0]
	return classify.Column(col.Name, col.Sample)
}

// newReport scores predictions.
func newReport(preds []Prediction) *Report {
	r := &Report{Predictions: preds}
	r.scoreLabels()
	r.scoreFalsePositives()
	r.scoreCalibration()
	return r
}

func (r *Report) scoreLabels() {
	byLabel := map[string]*LabelScore{}
	get := func(l string) *LabelScore {
		if byLabel[l] == nil {
			byLabel[l] = &LabelScore{Label: l, Category: classify.CategoryOf(l)}
		}
		return byLabel[l]
	}
	for _, p := range r.Predictions {
		get(p.Truth).Support++
	}
	for _, p := range r.Predictions {
		if s, ok := byLabel[p.Result.Label]; ok { // labels absent from the corpus get no row
			s.Predicted++
			if p.correct() {
				s.Correct++
			}
		}
	}
	for _, s := range byLabel {
		s.Precision = ratio(s.Correct, s.Predicted, 0)
		s.Recall = ratio(s.Correct, s.Support, 0)
		if s.Precision+s.Recall > 0 {
			s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
		}
		r.Labels = append(r.Labels, *s)
	}
	slices.SortFunc(r.Labels, func(a, b LabelScore) int {
		if c := categoryRank(a.Category) - categoryRank(b.Category); c != 0 {
			return c
		}
		return strings.Compare(a.Label, b.Label)
	})
	var sum float64
	var n int
	for _, s := range r.Labels { // in order, so the sum is the same every run
		if s.Category != classify.CategoryNone {
			sum += s.F1
			n++
		}
	}
	r.MacroF1 = ratioF(sum, n, math.NaN())
}

func categoryRank(c classify.GDPRCategory) int {
	switch c {
	case classify.CategoryPersonal:
		return 0
	case classify.CategorySpecial:
		return 1
	}
	return 2
}

func (r *Report) scoreFalsePositives() {
	for _, p := range r.Predictions {
		if classify.CategoryOf(p.Truth) != classify.CategoryNone {
			continue
		}
		r.NonPersonal++
		if p.sensitive() {
			r.FalsePositives++
		}
	}
	r.FalsePositiveRate = ratio(r.FalsePositives, r.NonPersonal, 0)
}

func (r *Report) scoreCalibration() {
	r.Calibration = make([]Bucket, len(calibrationEdges)-1)
	for i := range r.Calibration {
		r.Calibration[i].Lo, r.Calibration[i].Hi = calibrationEdges[i], calibrationEdges[i+1]
	}
	for _, p := range r.Predictions {
		if !p.sensitive() {
			continue
		}
		b := &r.Calibration[bucketOf(p.Result.Confidence)]
		b.Count++
		if p.correct() {
			b.Correct++
		}
		if p.Result.Confidence >= classify.AlertThreshold {
			r.Confident++
			if p.correct() {
				r.ConfidentCorrect++
			}
		}
	}
	for i := range r.Calibration {
		b := &r.Calibration[i]
		b.Accuracy = ratio(b.Correct, b.Count, math.NaN())
	}
	r.ConfidentAccuracy = ratio(r.ConfidentCorrect, r.Confident, math.NaN())
}

// bucketOf returns the index of the bucket holding confidence c.
func bucketOf(c float64) int {
	for i := len(calibrationEdges) - 2; i > 0; i-- {
		if c >= calibrationEdges[i] {
			return i
		}
	}
	return 0
}

func ratio(a, b int, empty float64) float64 { return ratioF(float64(a), b, empty) }

func ratioF(a float64, b int, empty float64) float64 {
	if b == 0 {
		return empty
	}
	return a / float64(b)
}

// Failures returns the targets the report misses; none when all are met.
func (r *Report) Failures() []string {
	var f []string
	if !(r.MacroF1 >= TargetMacroF1) {
		f = append(f, fmt.Sprintf("macro F1 over personal and special-category labels is %.3f, target ≥ %.2f", r.MacroF1, TargetMacroF1))
	}
	if r.FalsePositiveRate > TargetFalsePositiveRate {
		f = append(f, fmt.Sprintf("false-positive rate is %.1f%% (%d of %d non-personal columns), target ≤ %.0f%%",
			100*r.FalsePositiveRate, r.FalsePositives, r.NonPersonal, 100*TargetFalsePositiveRate))
	}
	switch {
	case r.Confident == 0:
		f = append(f, fmt.Sprintf("no personal prediction reaches confidence %.1f", classify.AlertThreshold))
	case r.ConfidentAccuracy < TargetConfidentAccuracy:
		f = append(f, fmt.Sprintf("personal predictions with confidence ≥ %.1f are right %.1f%% of the time (%d of %d), target ≥ %.0f%%",
			classify.AlertThreshold, 100*r.ConfidentAccuracy, r.ConfidentCorrect, r.Confident, 100*TargetConfidentAccuracy))
	}
	return f
}

// maxPrintedMisses caps the misclassified columns Print lists.
const maxPrintedMisses = 30

// Print writes the report as aligned tables.
func (r *Report) Print(w io.Writer) {
	sensitiveTruth := 0
	for _, p := range r.Predictions {
		if classify.CategoryOf(p.Truth) != classify.CategoryNone {
			sensitiveTruth++
		}
	}
	fmt.Fprintf(w, "Column classification: %d columns (%d personal or special-category, %d other)\n\n",
		len(r.Predictions), sensitiveTruth, r.NonPersonal)

	// Text columns align left, numbers right (fixed widths).
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "LABEL\tCATEGORY\t%7s\t%9s\t%9s\t%6s\t%5s\n", "SUPPORT", "PREDICTED", "PRECISION", "RECALL", "F1")
	for _, s := range r.Labels {
		fmt.Fprintf(tw, "%s\t%s\t%7d\t%9d\t%9.3f\t%6.3f\t%5.3f\n", s.Label, s.Category, s.Support, s.Predicted, s.Precision, s.Recall, s.F1)
	}
	tw.Flush()

	fmt.Fprintln(w)
	fmt.Fprintf(w, "Macro F1 (personal and special categories): %.3f   target ≥ %.2f\n", r.MacroF1, TargetMacroF1)
	fmt.Fprintf(w, "False-positive rate: %.1f%% (%d of %d non-personal columns)   target ≤ %.0f%%\n",
		100*r.FalsePositiveRate, r.FalsePositives, r.NonPersonal, 100*TargetFalsePositiveRate)
	fmt.Fprintf(w, "Confidence ≥ %.1f accuracy: %s (%d of %d)   target ≥ %.0f%%\n\n",
		classify.AlertThreshold, percent(r.ConfidentAccuracy), r.ConfidentCorrect, r.Confident, 100*TargetConfidentAccuracy)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "CONFIDENCE\t%11s\t%5s\t%8s\n", "PREDICTIONS", "RIGHT", "ACCURACY")
	for i, b := range r.Calibration {
		closer := ")"
		if i == len(r.Calibration)-1 {
			closer = "]"
		}
		fmt.Fprintf(tw, "[%.2f, %.2f%s\t%11d\t%5d\t%8s\n", b.Lo, b.Hi, closer, b.Count, b.Correct, percent(b.Accuracy))
	}
	tw.Flush()

	r.printMisses(w)
	if f := r.Failures(); len(f) > 0 {
		fmt.Fprintf(w, "\nTARGETS MISSED:\n  %s\n", strings.Join(f, "\n  "))
	} else {
		fmt.Fprintln(w, "\nAll targets met.")
	}
}

// printMisses lists misclassified columns, the ones that matter most
// first: false alarms, then missed or mislabelled personal data, then
// confusions among the non-personal labels.
func (r *Report) printMisses(w io.Writer) {
	var misses []Prediction
	for _, p := range r.Predictions {
		if !p.correct() {
			misses = append(misses, p)
		}
	}
	fmt.Fprintf(w, "\nMisclassified: %d of %d columns\n", len(misses), len(r.Predictions))
	if len(misses) == 0 {
		return
	}
	severity := func(p Prediction) int {
		truthSensitive := classify.CategoryOf(p.Truth) != classify.CategoryNone
		switch {
		case !truthSensitive && p.sensitive():
			return 0
		case truthSensitive:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(misses, func(a, b Prediction) int { return severity(a) - severity(b) })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tCOLUMN\tTRUTH → PREDICTED\tCONFIDENCE")
	for i, p := range misses {
		if i == maxPrintedMisses {
			fmt.Fprintf(tw, "  … and %d more\t\t\t\n", len(misses)-maxPrintedMisses)
			break
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\t%.3f\n", p.ID, p.Name, p.Truth, p.Result.Label, p.Result.Confidence)
	}
	tw.Flush()
}

func percent(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}
