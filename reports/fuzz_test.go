package reports

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzRender builds an Input from fuzzed names and numbers and checks
// that Render returns a PDF for every valid kind and level, and
// ErrInvalidInput otherwise, never a panic. Render recovers from panics,
// so a recovered one shows here as an unexpected error.
func FuzzRender(f *testing.F) {
	f.Add(uint8(0), false, "Acme Health Ltd", "customers.csv", "customer_email", "email", "personal", "57 values do not match", 82.4, 0.97, int64(12840), testHash)
	f.Add(uint8(1), true, "Ärzte – Straße", "数据集.csv", strings.Repeat("x", 5000), "", "special_category", "\x00\n\t{nb}", math.NaN(), math.Inf(-1), int64(-1), "")
	f.Add(uint8(2), true, "", "", "", "health", "special_category", "", math.Inf(1), 1e308, int64(math.MaxInt64), strings.Repeat("ab", 100))
	f.Add(uint8(3), false, "org", "ds", "col", "x", "none", "ai_readiness", -1.0, -1.0, int64(0), "h")
	f.Add(uint8(3), true, "org", "ds", "col", "x", "none", "weekly", 0.0, 0.0, int64(1), "h")
	f.Fuzz(func(t *testing.T, kind uint8, advanced bool, org, dataset, column, class, category, message string,
		score, confidence float64, rows int64, hash string) {
		in := fuzzInput(org, dataset, column, class, category, message, score, confidence, rows, hash)
		in.Level = Basic
		if advanced {
			in.Level = Advanced
		}
		// Kind 3 tries the message as a kind, which is valid only when it
		// names one.
		valid := true
		if i := int(kind) % (len(Kinds) + 1); i < len(Kinds) {
			in.Kind = Kinds[i]
		} else {
			in.Kind = Kind(message)
			valid = validate(in) == nil
		}
		b, err := Render(in)
		switch {
		case !valid && !errors.Is(err, ErrInvalidInput):
			t.Fatalf("kind %q: got %v, want ErrInvalidInput", in.Kind, err)
		case valid && err != nil:
			t.Fatalf("Render(%s, %s): %v", in.Kind, in.Level, err)
		case valid && !bytes.HasPrefix(b, []byte("%PDF-")):
			t.Fatalf("Render(%s, %s) returned no PDF", in.Kind, in.Level)
		}
	})
}

func fuzzInput(org, dataset, column, class, category, message string, score, confidence float64, rows int64, hash string) Input {
	col := Column{Name: column, Type: class, Classification: class, Category: category, Confidence: confidence,
		NullRate: confidence, Distinct: rows, Score: score}
	ds := Dataset{Kind: DatasetKind(category), ID: dataset, Name: dataset, Location: message, Rows: rows, Score: score,
		Dimensions: Dimensions{score, confidence, score, confidence}, PreviousScore: &confidence,
		History: []ScorePoint{{generatedAt, score}, {generatedAt.AddDate(0, 0, int(rows%1000)), confidence}},
		Columns: []Column{col, col}, Issues: []Issue{{Kind: message, Column: column, Severity: category, Count: rows, Message: message},
			{Kind: "missing_values", Column: column, Severity: "critical", Count: rows, Message: message}}}
	return Input{
		ReportID: hash, Organization: org, GeneratedAt: generatedAt,
		Retention:  Retention{Mode: class, Days: int(rows % 10000)},
		Datasets:   []Dataset{ds, {Name: org}},
		OpenAlerts: []Alert{{Kind: class, Severity: category, Title: message}}, OpenAlertsTotal: rows,
		Trend:        []ScorePoint{{generatedAt, score}, {generatedAt, confidence}},
		GradeHistory: []GradePoint{{generatedAt, class, score}},
		Certificate:  &Certificate{VerificationHash: hash, Grade: class, Score: score, Certified: rows%2 == 0},
	}
}
