package reports

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/dqs/dqs/internal/pdftext"
	"time"
)

// benchInput is an advanced executive summary of n datasets of 24
// columns, 8 issues and 60 history points each: about two and a half
// pages per dataset.
func benchInput(n int) Input {
	in := sampleInput(ExecutiveSummary, Advanced)
	kinds := []string{"missing_values", "invalid_format", "type_mismatch", "outliers", "duplicate_rows",
		"inconsistent_case", "inconsistent_format", "constant_column"}
	severities := []string{"info", "warning", "critical"}
	in.Datasets = make([]Dataset, n)
	for i := range in.Datasets {
		ds := Dataset{Kind: KindFile, ID: fmt.Sprintf("file-%d", i), Name: fmt.Sprintf("sales_export_%03d.csv", i),
			Location: "uploaded to DQS storage", AnalysedAt: generatedAt, Rows: int64(1000 * (i + 1)),
			Score: float64(50 + i%50), Dimensions: Dimensions{90, 80, 70, 60}, PreviousScore: ptr(float64(40 + i%60))}
		for j := range 60 {
			ds.History = append(ds.History, ScorePoint{generatedAt.Add(time.Duration(j-60) * 24 * time.Hour), float64(40 + (i+j)%60)})
		}
		for j := range 24 {
			name := fmt.Sprintf("column_%02d", j)
			ds.Columns = append(ds.Columns, Column{Name: name, Type: "string", Classification: "email", Category: "personal",
				Confidence: 0.9, NullRate: 0.01 * float64(j), Distinct: int64(100 * j), Score: float64(60 + j)})
		}
		for j, k := range kinds {
			ds.Issues = append(ds.Issues, Issue{Kind: k, Column: fmt.Sprintf("column_%02d", j), Severity: severities[j%3],
				Count: int64(10 * (j + 1)), Message: fmt.Sprintf("%d values of column_%02d are affected by %s", 10*(j+1), j, k)})
		}
		in.Datasets[i] = ds
	}
	return in
}

// BenchmarkRenderAdvanced50Pages renders an advanced executive summary
// of at least 50 pages. Target (not asserted): under 3 s and 200 MB
// allocated per report.
func BenchmarkRenderAdvanced50Pages(b *testing.B) {
	in := benchInput(24)
	out, err := Render(in)
	if err != nil {
		b.Fatal(err)
	}
	_, pages := pdftext.Read(b, out)
	if pages < 50 {
		b.Fatalf("the benchmark report has %d pages, want at least 50", pages)
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		if _, err := Render(in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(pages), "pages")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/1e6, "MB/op")
}
