package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"reflect"
	"testing"
	"time"
)

// readinessDatasets are two datasets whose every dimension is worked out
// by hand in TestAssessByHand.
func readinessDatasets() []Dataset {
	return []Dataset{
		{ID: "file/1", Name: "patients.csv", Rows: 1000,
			Dimensions: Dimensions{Completeness: 90, Validity: 80, Uniqueness: 100, Consistency: 70},
			Columns: []Column{
				{Name: "email", Type: "string", Classification: "email", Category: "personal", Confidence: 0.9, Distinct: 1000},
				{Name: "name", Type: "string", Classification: "person name", Category: "personal", Confidence: 1, Distinct: 900},
				{Name: "diagnosis", Type: "string", Classification: "health", Category: "special_category", Confidence: 0.5, Distinct: 5, NullRate: 0.1},
				{Name: "site", Type: "string", Category: "none", Distinct: 1},
				{Name: "ward", Type: "integer", Category: "none", Distinct: 10, NullRate: 0.6},
			},
			Issues: []Issue{{Kind: "missing_values", Column: "ward", Severity: "warning", Count: 100, Message: "m"}},
		},
		{ID: "file/2", Name: "sales.csv", Rows: 100000,
			Dimensions: Dimensions{Completeness: 100, Validity: 100, Uniqueness: 100, Consistency: 100},
			Columns: []Column{
				{Name: "amount", Type: "float", Category: "none", Distinct: 5000},
				{Name: "day", Type: "date", Category: "none", Distinct: 365},
			},
		},
	}
}

// TestAssessByHand compares the assessment with figures worked out by
// hand from the documented rules (readiness.go).
func TestAssessByHand(t *testing.T) {
	a := Assess(readinessDatasets())
	// patients.csv: privacy 100 - 20*0.9 - 20*1 - 40*0.5 = 42; volume
	// 20*log10(1000) = 60; structure 3 of 5 columns = 60; overall
	// .2*90 + .2*80 + .1*100 + .1*70 + .2*42 + .1*60 + .1*60 = 71.4.
	// sales.csv: every dimension 100.
	wantPatients := []float64{90, 80, 100, 70, 42, 60, 60}
	for i, d := range a.Datasets[0].Dimensions {
		if d.Score != wantPatients[i] {
			t.Errorf("patients.csv %s = %v, want %v", d.Key, d.Score, wantPatients[i])
		}
	}
	if a.Datasets[0].Score != 71.4 || a.Datasets[0].Grade != "C" || a.Datasets[1].Score != 100 || a.Datasets[1].Grade != "A" {
		t.Errorf("datasets = %+v", a.Datasets)
	}
	// The organisation: each dimension the mean of the two; overall
	// .2*95 + .2*90 + .1*100 + .1*85 + .2*71 + .1*80 + .1*80 = 85.7, B,
	// certified (at least 80, no dimension under 60).
	wantOrg := []float64{95, 90, 100, 85, 71, 80, 80}
	for i, d := range a.Dimensions {
		if d.Score != wantOrg[i] || d.Key != DimensionWeights[i].Key || d.Weight != DimensionWeights[i].Weight {
			t.Errorf("dimension %d = %+v, want %s %v", i, d, DimensionWeights[i].Key, wantOrg[i])
		}
	}
	if a.Score != 85.7 || a.Grade != "B" || !a.Certified || len(a.Reasons) != 0 {
		t.Errorf("overall = %v %s certified %v %v", a.Score, a.Grade, a.Certified, a.Reasons)
	}
	// The recommendations, ranked by impact: diagnosis 40*0.5*0.2 = 4 and
	// name 20*1*0.2 = 4 (tied: by column), email 20*0.9*0.2 = 3.6, the
	// missing values 100*(100/1000)*0.6*0.35 = 2.1.
	var got []string
	var impacts []float64
	for _, r := range a.Recommendations {
		got, impacts = append(got, r.Column), append(impacts, r.Impact)
	}
	if !reflect.DeepEqual(got, []string{"diagnosis", "name", "email", "ward"}) || !reflect.DeepEqual(impacts, []float64{4, 4, 3.6, 2.1}) {
		t.Errorf("recommendations %v %v", got, impacts)
	}
}

// TestAssessCertificationBar: patients.csv alone fails the bar on its
// overall score and on privacy, and says so.
func TestAssessCertificationBar(t *testing.T) {
	a := Assess(readinessDatasets()[:1])
	want := []string{"the overall score 71.4 is below 80", "privacy scores 42.0, below 60"}
	if a.Certified || !reflect.DeepEqual(a.Reasons, want) {
		t.Errorf("certified %v, reasons %q", a.Certified, a.Reasons)
	}
	if e := Assess(nil); e.Certified || e.Grade != "F" || len(e.Dimensions) != 7 || len(e.Reasons) != 1 {
		t.Errorf("no data = %+v", e)
	}
}

// TestAssessNaNNeverCertifies: a NaN score counts as 0, so it can neither
// pass the bar nor reach the certificate's JSON.
func TestAssessNaNNeverCertifies(t *testing.T) {
	ds := readinessDatasets()[1:]
	ds[0].Dimensions = Dimensions{Completeness: math.NaN(), Validity: math.Inf(1), Uniqueness: 100, Consistency: 100}
	a := Assess(ds)
	if a.Certified || math.IsNaN(a.Score) || a.Dimensions[0].Score != 0 || a.Dimensions[1].Score != 0 {
		t.Errorf("NaN assessment = %+v", a)
	}
	if _, _, err := NewCertificate("c", "r", "o", a, time.Unix(0, 0)).Canonical(); err != nil {
		t.Errorf("certificate of a NaN assessment: %v", err)
	}
}

func TestGrades(t *testing.T) {
	for score, want := range map[float64]string{100: "A", 90: "A", 89.9: "B", 80: "B", 79.9: "C", 70: "C", 60: "D", 59.9: "F", 0: "F"} {
		if g := Grade(score); g != want {
			t.Errorf("Grade(%v) = %s, want %s", score, g, want)
		}
	}
}

// TestCertificateCanonicalForm holds the canonical JSON to RFC 8785 as
// written out by hand: keys sorted, no whitespace, numbers in their
// shortest form; the hash is its SHA-256.
func TestCertificateCanonicalForm(t *testing.T) {
	a := Assess(readinessDatasets())
	doc := NewCertificate("6f1c1a52-0000-4000-8000-000000000001", "9a7b2c4d-0000-4000-8000-000000000002", "Acme <Nordic> AB", a,
		time.Date(2026, 11, 27, 10, 11, 12, 999, time.FixedZone("CET", 3600)))
	canonical, hash, err := doc.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"certificate_id":"6f1c1a52-0000-4000-8000-000000000001","certified":true,"datasets":2,` +
		`"dimensions":{"completeness":95,"consistency":85,"privacy":71,"structure":80,"uniqueness":100,"validity":90,"volume":80},` +
		`"grade":"B","issued_at":"2026-11-27T09:11:12Z","organization":"Acme <Nordic> AB",` +
		`"report_id":"9a7b2c4d-0000-4000-8000-000000000002","score":85.7,"version":"dqs-ai-readiness-certificate/1"}`
	if string(canonical) != want {
		t.Fatalf("canonical form\n got %s\nwant %s", canonical, want)
	}
	sum := sha256.Sum256([]byte(want))
	if hash != hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s, want the SHA-256 of the canonical form", hash)
	}
}

// TestMostMovedAndBreakdown: the largest moves either way first; issues
// counted by kind and severity, worst severity first among equals.
func TestMostMovedAndBreakdown(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	ds := []Dataset{
		{Name: "a", Score: 80, PreviousScore: p(90)},
		{Name: "b", Score: 70, PreviousScore: p(50), Issues: []Issue{{Kind: "outliers", Severity: "info", Count: 3}, {Kind: "outliers", Severity: "critical", Count: 2}}},
		{Name: "c", Score: 60},
		{Name: "d", Score: 61, PreviousScore: p(60), Issues: []Issue{{Kind: "outliers", Severity: "critical", Count: 5}}},
	}
	moved := MostMoved(ds, 2)
	if len(moved) != 2 || moved[0].Dataset != "b" || moved[0].Change != 20 || moved[1].Dataset != "a" || moved[1].Change != -10 {
		t.Errorf("MostMoved = %+v", moved)
	}
	br := IssueBreakdown(ds)
	want := []IssueCount{{Kind: "outliers", Severity: "critical", Issues: 2, Values: 7}, {Kind: "outliers", Severity: "info", Issues: 1, Values: 3}}
	if !reflect.DeepEqual(br, want) {
		t.Errorf("IssueBreakdown = %+v", br)
	}
}
