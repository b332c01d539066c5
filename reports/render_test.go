package reports

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/pdftext"
)

var update = flag.Bool("update", false, "rewrite the golden PDFs in testdata")

var generatedAt = time.Date(2025, 3, 31, 14, 5, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// testHash is a certificate's verification hash: 64 hex characters.
const testHash = "3f5a9c0e7b2d4816a0c1e9f3b5d7a2c4e6f8091a3b5c7d9e1f2a4b6c8d0e2f41"

func sampleDatasets() []Dataset {
	return []Dataset{
		{
			Kind: KindFile, ID: "file-1", Name: "customers.csv", Location: "uploaded to DQS storage",
			AnalysedAt: date(2025, 3, 30), Rows: 12840, Score: 82.4,
			Dimensions:    Dimensions{Completeness: 91.2, Validity: 84.0, Uniqueness: 97.5, Consistency: 88.1},
			PreviousScore: ptr(76.0),
			History:       []ScorePoint{{date(2025, 1, 5), 70.0}, {date(2025, 2, 5), 76.0}, {date(2025, 3, 30), 82.4}},
			Columns: []Column{
				{Name: "customer_email", Type: "string", Classification: "email", Category: "personal", Confidence: 0.97, NullRate: 0.02, Distinct: 12700, Score: 90.5},
				{Name: "full_name", Type: "string", Classification: "person name", Category: "personal", Confidence: 0.88, Distinct: 12100, Score: 95},
				{Name: "order_total", Type: "float", Category: "none", NullRate: 0.05, Distinct: 9100, Score: 88},
			},
			Issues: []Issue{
				{Kind: "missing_values", Column: "order_total", Severity: "warning", Count: 642, Message: "642 values of order_total are missing"},
				{Kind: "invalid_format", Column: "customer_email", Severity: "critical", Count: 57, Message: "57 values do not match the email format"},
			},
			ErasureDueAt: ptr(date(2025, 6, 30)),
		},
		{
			Kind: KindTable, ID: "clinic/public.patients", Name: "public.patients", Location: "PostgreSQL source clinic, schema public",
			AnalysedAt: date(2025, 3, 29), Rows: 3200, Score: 64.1,
			Dimensions:    Dimensions{Completeness: 70.0, Validity: 61.5, Uniqueness: 58.0, Consistency: 66.9},
			PreviousScore: ptr(71.3),
			Columns: []Column{
				{Name: "diagnosis_code", Type: "string", Classification: "health data", Category: "special_category", Confidence: 0.91, NullRate: 0.1, Distinct: 420, Score: 70},
				{Name: "patient_email", Type: "string", Classification: "email", Category: "personal", Confidence: 0.99, Distinct: 3150, Score: 80},
				{Name: "religion", Type: "string", Classification: "religious belief", Category: "special_category", Confidence: 0.8, NullRate: 0.6, Distinct: 12, Score: 40},
				{Name: "visit_date", Type: "date", Category: "none", Distinct: 900, Score: 99},
			},
			Issues: []Issue{{Kind: "duplicate_rows", Severity: "warning", Count: 40, Message: "40 rows are duplicates"}},
		},
		{
			Kind: KindFile, ID: "file-2", Name: "products.parquet", Location: "uploaded to DQS storage",
			AnalysedAt: date(2025, 3, 28), Rows: 500, Score: 97.0,
			Dimensions: Dimensions{Completeness: 99, Validity: 98, Uniqueness: 100, Consistency: 92},
			Columns: []Column{
				{Name: "sku", Type: "string", Category: "none", Distinct: 500, Score: 100},
				{Name: "price", Type: "float", Category: "none", Distinct: 230, Score: 96},
			},
			ErasedAt: ptr(date(2025, 3, 29)),
		},
	}
}

func sampleInput(kind Kind, level Level) Input {
	datasets := sampleDatasets()
	a := Assess(datasets)
	return Input{
		Kind: kind, Level: level, ReportID: "rep-0001", Organization: "Acme Health Ltd",
		GeneratedAt: generatedAt, From: ptr(date(2025, 1, 1)), To: ptr(date(2025, 4, 1)), // To is exclusive: through 31 March
		Retention: Retention{Mode: "short_term", Days: 90},
		Datasets:  datasets,
		OpenAlerts: []Alert{
			{Kind: "score_drop", Severity: "critical", Title: "Score of public.patients fell by 7.2 points", RaisedAt: date(2025, 3, 29)},
			{Kind: "schema_change", Severity: "warning", Title: "Column added to customers.csv", RaisedAt: date(2025, 3, 20)},
		},
		OpenAlertsTotal: 5,
		Trend:           []ScorePoint{{date(2025, 1, 1), 70.2}, {date(2025, 2, 1), 73.5}, {date(2025, 3, 1), 75.0}, {date(2025, 3, 31), 78.3}},
		GradeHistory:    []GradePoint{{date(2024, 12, 31), "D", 64.0}, {date(2025, 2, 28), "C", 71.2}},
		Certificate:     &Certificate{VerificationHash: testHash, Grade: a.Grade, Score: a.Score, Certified: a.Certified, IssuedAt: generatedAt},
	}
}

func render(t testing.TB, in Input) (text string, pages int) {
	t.Helper()
	b, err := Render(in)
	if err != nil {
		t.Fatalf("Render(%s, %s): %v", in.Kind, in.Level, err)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("Render(%s, %s) did not return a PDF", in.Kind, in.Level)
	}
	return pdftext.Read(t, b)
}

func assertContains(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
}

func assertLacks(t *testing.T, text string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			t.Errorf("the report contains %q", w)
		}
	}
}

func TestRenderCoverAndPageFurniture(t *testing.T) {
	for _, kind := range Kinds {
		t.Run(string(kind), func(t *testing.T) {
			text, pages := render(t, sampleInput(kind, Basic))
			assertContains(t, text, kind.Title(), "Acme Health Ltd", "2025-03-31 14:05 UTC",
				"2025-01-01 to 2025-03-31", "Basic", "rep-0001",
				"Page 1 of "+strconv.Itoa(pages), "Page "+strconv.Itoa(pages)+" of "+strconv.Itoa(pages),
				"Report rep-0001 · generated 2025-03-31 14:05 UTC")
		})
	}
}

func TestRenderPeriod(t *testing.T) {
	in := sampleInput(ExecutiveSummary, Basic)
	in.From, in.To = nil, nil
	text, _ := render(t, in)
	assertContains(t, text, "Period all analyses")
	in.From = ptr(date(2025, 2, 1))
	text, _ = render(t, in)
	assertContains(t, text, "Period from 2025-02-01")
}

func TestRenderGDPR(t *testing.T) {
	text, _ := render(t, sampleInput(GDPRCompliance, Basic))
	assertContains(t, text,
		"Record of processing activities under GDPR Article 30(1)",
		"(a) Name and contact details of the controller", "Controller Acme Health Ltd",
		"(b) Purposes of the processing",
		"(c) Categories of data subjects and categories of personal data",
		"(d) Categories of recipients",
		"(e) Transfers to third countries or international organisations",
		"(f) Time limits for erasure",
		"(g) Technical and organisational security measures",
		"Data protection officer (name and contact details) To be completed by the controller",
		// (c): labels with their datasets; the special category apart.
		"email 2 customers.csv, public.patients", "person name 1 customers.csv",
		"Special categories of personal data (Article 9) Classification Columns Datasets health data 1 public.patients religious belief 1 public.patients",
		// (f)
		"Retention mode short_term", "Retention period 90 days",
		"customers.csv file erasure due 2025-06-30", "public.patients table kept in its source",
		"products.parquet file erased on 2025-03-29",
		"Where the data is stored", "public.patients table PostgreSQL source clinic, schema public",
		"Inventory of sensitive columns",
		"customers.csv customer_email email personal 0.97",
		"public.patients diagnosis_code health data special_category 0.91",
		"Compliance status per dataset",
		"public.patients action required 2 column(s) of a special category need an Article 9 condition",
		"customers.csv personal data: review 2 column(s) of personal data",
		"products.parquet no personal data detected",
		"Remediation steps", "Action required on the dataset",
		`Pseudonymise, mask or remove "diagnosis_code"`,
	)
	// Article 30(1)'s points come in its order.
	last := -1
	for _, h := range []string{"(a) Name", "(b) Purposes", "(c) Categories", "(d) Categories", "(e) Transfers", "(f) Time", "(g) Technical"} {
		i := strings.Index(text, h)
		if i <= last {
			t.Errorf("%q is out of Article 30(1)'s order", h)
		}
		last = i
	}
	// Quality steps belong to the other reports.
	assertLacks(t, text, "Fill or drop", "Remove the duplicate rows")
	if n := strings.Count(text, notCompleted); n < 9 {
		t.Errorf("%d blank fields, want at least 9 (a: 4, b, c, d, e, g)", n)
	}
}

func TestRenderGDPRWithoutSpecialCategory(t *testing.T) {
	in := sampleInput(GDPRCompliance, Basic)
	in.Datasets = in.Datasets[:1]
	text, _ := render(t, in)
	assertContains(t, text, "Special categories of personal data (Article 9) No column was classified as a special category of personal data.")
	assertLacks(t, text, "health data")
}

func TestRenderExecutive(t *testing.T) {
	text, _ := render(t, sampleInput(ExecutiveSummary, Basic))
	assertContains(t, text,
		"Data quality across the organisation",
		"Overall quality", "81.2 / 100", "mean quality score of 3 analysed dataset(s)",
		"Trend over time", "The mean quality score went from 70.2 on 2025-01-01 to 78.3 on 2025-03-31: a rise of 8.1 points.",
		"Issues by kind and severity", "missing_values warning 1 642", "invalid_format critical 1 57",
		"Datasets that moved most", "public.patients 71.3 64.1 -7.2", "customers.csv 76.0 82.4 +6.4",
		"Open alerts", "5 open alert(s); the 2 newest are listed.", "Score of public.patients fell by 7.2 points",
		"Recommendations", `Fill or drop the 642 missing values of "order_total"`, "642 values of order_total are missing",
		"Datasets", "customers.csv 12,840 82.4 91.2 84.0 97.5 88.1",
	)
	// Privacy steps belong to the GDPR and AI readiness reports.
	assertLacks(t, text, "Pseudonymise")
	// Recommendations are ranked by impact: the critical format issue
	// (57/12840 rows) weighs less than the 40 duplicate rows of 3,200.
	if i, j := strings.Index(text, "Remove the duplicate rows"), strings.Index(text, "Correct the 57 values"); i < 0 || j < 0 || i > j {
		t.Errorf("recommendations out of impact order")
	}
}

func TestRenderExecutiveNoDataset(t *testing.T) {
	in := sampleInput(ExecutiveSummary, Basic)
	in.Datasets, in.Trend, in.OpenAlerts, in.OpenAlertsTotal = nil, nil, nil, 0
	text, _ := render(t, in)
	assertContains(t, text, "no analysed dataset in scope", "No score was recorded in the period.",
		"No quality issue was found.", "No open alert.")
}

func TestRenderReadiness(t *testing.T) {
	in := sampleInput(AIReadiness, Basic)
	a := Assess(in.Datasets)
	text, _ := render(t, in)
	assertContains(t, text,
		"AI readiness report", "Overall score",
		a.Grade+" "+score1(a.Score)+" / 100",
		"Dimensions", "Privacy", "Evidence",
		"Datasets", "Grade history", "2024-12-31 D 64.0", "2025-02-28 C 71.2",
		"2025-03-31 "+a.Grade+" "+score1(a.Score)+" this report",
		"Certificate", "Verification hash "+testHash, "Verify at POST /api/v1/ai-readiness/certificates/verify with this hash.",
		"How the score is computed", "completeness 20%", "privacy 20%", "structure 10%",
		"A from 90, B from 80, C from 70, D from 60, F below 60.",
		"an overall score of at least 80 and no dimension below 60",
	)
	if a.Certified {
		t.Fatal("the fixture is expected not to certify")
	}
	assertContains(t, text, "Not certified")
	assertContains(t, text, a.Reasons...)
	for _, r := range a.Datasets {
		assertContains(t, text, r.Name+" "+score1(r.Score)+" "+r.Grade)
	}
	for _, dim := range a.Dimensions {
		assertContains(t, text, capital(dim.Key)+" "+score1(dim.Score)+" "+strconv.FormatFloat(dim.Weight, 'f', 2, 64))
	}
}

// The service's assessment, when given, is the one printed (the
// certificate was issued for it).
func TestRenderReadinessGivenAssessment(t *testing.T) {
	in := sampleInput(AIReadiness, Basic)
	a := Assess(in.Datasets)
	a.Score, a.Grade, a.Certified, a.Reasons = 91.3, "A", true, nil
	in.Readiness = &a
	in.Certificate = nil
	text, _ := render(t, in)
	assertContains(t, text, "A 91.3 / 100", "Certified The data meets the certification bar.")
	assertLacks(t, text, "Not certified", "Verification hash")
}

func TestRenderDeterministic(t *testing.T) {
	for _, kind := range Kinds {
		for _, level := range []Level{Basic, Advanced} {
			in := sampleInput(kind, level)
			a, err := Render(in)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Render(sampleInput(kind, level))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s %s: two renders of one input differ", kind, level)
			}
		}
	}
}

// The PDF's dates are UTC: the zone GeneratedAt comes in does not change
// a byte.
func TestRenderZoneIndependent(t *testing.T) {
	in := sampleInput(AIReadiness, Basic)
	a, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	in.GeneratedAt = in.GeneratedAt.In(time.FixedZone("CEST", 2*3600))
	b, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the report depends on GeneratedAt's zone")
	}
}

// The service renders reports in parallel: renders must share no state.
func TestRenderConcurrent(t *testing.T) {
	want := make(map[Kind][]byte)
	for _, kind := range Kinds {
		b, err := Render(sampleInput(kind, Advanced))
		if err != nil {
			t.Fatal(err)
		}
		want[kind] = b
	}
	errs := make(chan error, 4*len(Kinds))
	for range 4 {
		for _, kind := range Kinds {
			go func() {
				b, err := Render(sampleInput(kind, Advanced))
				if err == nil && !bytes.Equal(b, want[kind]) {
					err = errors.New(string(kind) + ": a parallel render differs")
				}
				errs <- err
			}()
		}
	}
	for range 4 * len(Kinds) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestRenderGolden compares each report at basic level with its golden
// file byte for byte; -update rewrites them.
func TestRenderGolden(t *testing.T) {
	for _, kind := range Kinds {
		t.Run(string(kind), func(t *testing.T) {
			got, err := Render(sampleInput(kind, Basic))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", string(kind)+"_basic.pdf")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./reports -run Golden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file (%d bytes, want %d); if intended, run go test ./reports -run Golden -update", path, len(got), len(want))
			}
		})
	}
}

// The advanced level adds per-column detail: more pages, and rows of
// columns the basic level does not print.
func TestRenderAdvancedAddsDetail(t *testing.T) {
	perColumn := map[Kind][]string{
		GDPRCompliance:   {"Columns per dataset", "order_total float - none 0.00 5.0%", "sku string - none 0.00 0.0%"},
		ExecutiveSummary: {"Dataset: customers.csv", "order_total float 88.0 5.0% 9,100", "Score history", "The score went from 70.0 on 2025-01-05 to 82.4 on 2025-03-30"},
		AIReadiness:      {"Dataset: public.patients", "visit_date date - none 0.0% 900"},
	}
	for _, kind := range Kinds {
		t.Run(string(kind), func(t *testing.T) {
			basic, basicPages := render(t, sampleInput(kind, Basic))
			advanced, advancedPages := render(t, sampleInput(kind, Advanced))
			if advancedPages <= basicPages {
				t.Errorf("advanced has %d pages, basic %d", advancedPages, basicPages)
			}
			assertContains(t, advanced, perColumn[kind]...)
			assertContains(t, advanced, "Advanced")
			assertLacks(t, basic, perColumn[kind]...)
		})
	}
}

func TestRenderInvalidInput(t *testing.T) {
	for name, in := range map[string]Input{
		"unknown kind":  {Kind: "weekly_digest", Level: Basic, GeneratedAt: generatedAt},
		"empty kind":    {Level: Basic, GeneratedAt: generatedAt},
		"unknown level": {Kind: GDPRCompliance, Level: "expert", GeneratedAt: generatedAt},
		"empty level":   {Kind: AIReadiness, GeneratedAt: generatedAt},
		"no date":       {Kind: ExecutiveSummary, Level: Basic},
	} {
		b, err := Render(in)
		if !errors.Is(err, ErrInvalidInput) || b != nil {
			t.Errorf("%s: got %d bytes, error %v; want ErrInvalidInput", name, len(b), err)
		}
	}
}

func hostileInputs() map[string]func(*Input) {
	long := strings.Repeat("x", 5000)
	nan, inf := math.NaN(), math.Inf(1)
	return map[string]func(*Input){
		"5000-char column name": func(in *Input) {
			in.Datasets[0].Columns[0].Name = long
			in.Datasets[0].Issues[0].Column = long
			in.Datasets[1].Columns[0].Classification = long
		},
		"5000-char words": func(in *Input) {
			in.Organization = strings.Repeat("word ", 1000)
			in.Datasets[0].Name = long
			in.Datasets[0].Location = strings.Repeat("far ", 1250)
			in.Datasets[0].Issues[0].Message = long
			in.Certificate.VerificationHash = long
		},
		"no dataset": func(in *Input) {
			in.Datasets = nil
			in.Trend = nil
		},
		"empty dataset": func(in *Input) {
			in.Datasets = []Dataset{{}}
		},
		"NaN and Inf": func(in *Input) {
			for i := range in.Datasets {
				ds := &in.Datasets[i]
				ds.Score, ds.Dimensions = nan, Dimensions{nan, inf, -inf, nan}
				ds.PreviousScore = ptr(inf)
				ds.History = []ScorePoint{{date(2025, 1, 1), nan}, {date(2025, 2, 1), inf}}
				for j := range ds.Columns {
					ds.Columns[j].Confidence, ds.Columns[j].NullRate, ds.Columns[j].Score = nan, inf, nan
				}
			}
			in.Trend = []ScorePoint{{date(2025, 1, 1), nan}, {date(2025, 1, 2), -inf}, {date(2025, 1, 3), 50}}
			in.GradeHistory = []GradePoint{{date(2025, 1, 1), "F", nan}}
			in.Certificate.Score = nan
		},
		"accents and Chinese": func(in *Input) {
			in.Organization = "Ärzte – Straße GmbH"
			in.Datasets[0].Name = "数据集.csv"
			in.Datasets[1].Columns[1].Name = "Straße_€"
		},
		"control characters and odd UTF-8": func(in *Input) {
			in.Organization = "Acme\x00\n\t\x7f\u0085 Ltd \xff\xfe {nb}"
			in.Datasets[0].Columns[0].Name = "a\u200bb\U0001F600c"
		},
		"out-of-range numbers": func(in *Input) {
			in.Datasets[0].Score = 1e300
			in.Datasets[0].Rows = math.MinInt64
			in.Datasets[0].Columns[0].Distinct = math.MaxInt64
			in.Trend = []ScorePoint{{time.Time{}, -5}, {date(9999, 12, 31), 500}}
			in.GradeHistory = []GradePoint{{date(1, 1, 1), "", -1e9}}
			in.OpenAlertsTotal = -3
		},
		"same dates": func(in *Input) {
			in.Trend = []ScorePoint{{generatedAt, 10}, {generatedAt, 90}, {generatedAt, 50}}
		},
	}
}

func TestRenderHostileInput(t *testing.T) {
	for name, mutate := range hostileInputs() {
		for _, kind := range Kinds {
			for _, level := range []Level{Basic, Advanced} {
				in := sampleInput(kind, level)
				mutate(&in)
				text, _ := render(t, in)
				assertLacks(t, text, "NaN", "Inf")
				if name == "accents and Chinese" {
					assertContains(t, text, "Ärzte – Straße GmbH", "???.csv")
				}
			}
		}
	}
}

// Scores out of 0-100 are held to it rather than printed as they come.
func TestRenderClampsScores(t *testing.T) {
	in := sampleInput(ExecutiveSummary, Basic)
	in.Datasets[0].Score = 1e300
	in.Datasets[1].Score = -7
	text, _ := render(t, in)
	// (100 + 0 + 97) / 3
	assertContains(t, text, "65.7 / 100", "customers.csv 12,840 100.0", "public.patients 3,200 0.0")
}

// Render works on a copy: sanitising NaN must not write to the caller's
// datasets.
func TestRenderLeavesInputAlone(t *testing.T) {
	in := sampleInput(AIReadiness, Advanced)
	in.Datasets[0].Score = math.NaN()
	in.Datasets[0].Columns[0].Confidence = math.NaN()
	if _, err := Render(in); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(in.Datasets[0].Score) || !math.IsNaN(in.Datasets[0].Columns[0].Confidence) {
		t.Error("Render changed its input")
	}
}

func TestRenderLongTextIsClipped(t *testing.T) {
	in := sampleInput(GDPRCompliance, Advanced)
	in.Datasets[0].Columns[0].Name = strings.Repeat("y", 5000)
	_, pages := render(t, in)
	_, want := render(t, sampleInput(GDPRCompliance, Advanced))
	// A 5,000-character name is cut to a few lines per cell, not laid
	// out over pages.
	if pages > want+1 {
		t.Errorf("%d pages for a long name, %d without", pages, want)
	}
}

func TestTxt(t *testing.T) {
	d := newDoc(sampleInput(GDPRCompliance, Basic))
	for in, want := range map[string]string{
		"plain":       "plain",
		"Ärzte":       "\xc4rzte",
		"a–b €":       "a\x96b \x80",
		"数据.":         "??.",
		"tab\there\n": "tab here ",
		"\xff":        "?",
	} {
		if got := d.txt(in); got != want {
			t.Errorf("txt(%q) = %q, want %q", in, got, want)
		}
	}
	if got := d.txt(strings.Repeat("z", 2*maxTextBytes)); len(got) != maxTextBytes || !strings.HasSuffix(got, "...") {
		t.Errorf("txt does not cut long text: %d bytes", len(got))
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 12840: "12,840", -1234567: "-1,234,567"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPersonalCategories(t *testing.T) {
	got := personalCategories(sampleDatasets())
	want := []personalCategory{
		{label: "email", columns: 2, datasets: []string{"customers.csv", "public.patients"}},
		{label: "health data", special: true, columns: 1, datasets: []string{"public.patients"}},
		{label: "person name", columns: 1, datasets: []string{"customers.csv"}},
		{label: "religious belief", special: true, columns: 1, datasets: []string{"public.patients"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d categories, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.label != w.label || g.special != w.special || g.columns != w.columns || strings.Join(g.datasets, "|") != strings.Join(w.datasets, "|") {
			t.Errorf("category %d = %+v, want %+v", i, g, w)
		}
	}
}
