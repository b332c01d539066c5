package snowflake

// A sampled profile (Options.SampledProfile) against the FAKE Snowflake of
// snowflake_test.go: Snowflake cannot run here, so these tests check the
// SQL the connector sends (the catalogue, the row count, then the
// aggregate query over a SAMPLE SYSTEM, or the exact query) and how it
// reads the canned answers, not what Snowflake's sampling draws.

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

var (
	peopleCols = []column{
		{"ID", "NUMBER", classNumeric},
		{"NAME", "TEXT", classText},
		{"ACTIVE", "BOOLEAN", classBool},
		{"CREATED", "TIMESTAMP_NTZ", classOrdered},
	}
	nameFormat = map[string]string{"NAME": `^[A-Z]{2}-[0-9]{4}$`}
)

const peopleCount = `SELECT COUNT(*) FROM "PUBLIC"."PEOPLE"`

// sampledAnswer is defaultAnswer with a row count of count and sampled
// answering the aggregate query over a sample (SAMPLE SYSTEM).
func sampledAnswer(count string, sampled []*string) func(r *http.Request, q query) (*result, string) {
	return func(r *http.Request, q query) (*result, string) {
		switch {
		case q.SQL == peopleCount:
			return &result{cols: []col{{"COUNT(*)", "fixed"}}, rows: [][]*string{{sp(count)}}}, ""
		case strings.HasPrefix(q.SQL, "SELECT COUNT(*) AS") && strings.Contains(q.SQL, " SAMPLE SYSTEM ("):
			cols := make([]col, len(sampled))
			for i := range cols {
				cols[i] = col{fmt.Sprintf("M%d", i), "text"}
			}
			return &result{cols: cols, rows: [][]*string{sampled}}, ""
		}
		return defaultAnswer(r, q)
	}
}

func openSampled(t *testing.T, f *fake) *Source {
	t.Helper()
	s, err := open(context.Background(), connectors.Options{Credentials: creds(nil), Dialer: &connectortest.CountingDialer{},
		Timeout: 10 * time.Second, SampledProfile: true}, fakeEndpoint(t, f.srv.URL))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func strs(vs ...any) []*string {
	out := make([]*string, len(vs))
	for i, v := range vs {
		if v != nil {
			out[i] = sp(fmt.Sprint(v))
		}
	}
	return out
}

// A sample of 99,000 rows of a table of 12,345,678: the figures of the
// sample, scaled where they are counts.
func TestSampledProfile(t *testing.T) {
	f := newFake(t)
	f.answer = sampledAnswer("12345678", strs(
		99_000,                                                                          // sampled rows
		0, 98_000, 3, 12_345_601, 6.2e6, 3.5e6, 1e5, 6e5, 3e6, 6e6, 9e6, 1.17e7, 1.22e7, // ID: 98,000 values in 99,000
		333, 990, 7, "AB-1234", "ZZ-9999", 48_000, // NAME
		0, 2, "false", "true", // ACTIVE
		99_000, 0, nil, nil, // CREATED: null in the sample
	))
	s := openSampled(t, f)
	p, err := s.Profile(context.Background(), "PEOPLE", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	if len(q) != 3 || p.Queries != 3 {
		t.Fatalf("sampled Profile sent %d queries (reported %d), want 3: %+v", len(q), p.Queries, q)
	}
	if q[0].SQL != columnsQuery || q[1].SQL != peopleCount || len(q[1].Args) != 0 {
		t.Errorf("first queries %+v, want the catalogue and the row count", q[:2])
	}
	// 100·100,000/12,345,678 = 0.81000..., rounded up.
	want, _, _ := profileQuery("PUBLIC", "PEOPLE", peopleCols, nameFormat, 0.811)
	if q[2].SQL != want || !strings.HasSuffix(q[2].SQL, `FROM "PUBLIC"."PEOPLE" SAMPLE SYSTEM (0.811) SEED (20261127)`) ||
		!strings.Contains(q[2].SQL, `COUNT(DISTINCT "ID")`) || strings.Contains(q[2].SQL, "APPROX_COUNT_DISTINCT") {
		t.Errorf("sampled query\n got %s\nwant %s", q[2].SQL, want)
	}
	if fmt.Sprint(q[2].Args) != "["+nameFormat["NAME"]+"]" {
		t.Errorf("sampled query binds %v", q[2].Args)
	}
	if p.Rows != 12_345_678 {
		t.Errorf("rows %d, want the count's", p.Rows)
	}
	id, name, active, created := p.Columns[0], p.Columns[1], p.Columns[2], p.Columns[3]
	// 98,000 values in 99,000: each about 3.5 times in the table
	// (sqlprofile.EstimateDistinct).
	if id.Nulls != 0 || id.Distinct < 3_400_000 || id.Distinct > 3_600_000 || *id.Min != "3" || *id.Max != "12345601" ||
		*id.Mean != 6.2e6 || *id.StdDev != 3.5e6 || *id.Median != 6e6 || id.Quantiles["p01"] != 1e5 || len(id.Quantiles) != 7 {
		t.Errorf("ID %+v", id)
	}
	// round(333·12,345,678/99,000) = 41,526; round(990·...) = 123,457.
	if name.Nulls != 41_526 || name.Empty != 123_457 || name.Distinct != 7 || *name.Min != "AB-1234" ||
		name.FormatConformance == nil || math.Abs(*name.FormatConformance-48_000.0/(99_000-333-990)) > 1e-12 {
		t.Errorf("NAME %+v", name)
	}
	if active.Nulls != 0 || active.Distinct != 2 || *active.Min != "false" {
		t.Errorf("ACTIVE %+v", active)
	}
	if created.Nulls != 12_345_678 || created.Distinct != 0 || created.Max != nil {
		t.Errorf("CREATED %+v", created)
	}
	connectortest.CheckEstimated(t, p, "[nulls distinct min max mean stddev median quantiles]",
		"[nulls empty distinct min max format_conformance]", "[nulls distinct min max]", "[nulls distinct]")
}

// A table no larger than the sample is read whole by the exact query:
// figures exact, nothing estimated.
func TestSampledProfileSmallTable(t *testing.T) {
	f := newFake(t)
	f.answer = sampledAnswer("100000", nil)
	s := openSampled(t, f)
	p, err := s.Profile(context.Background(), "PEOPLE", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	exact, _, _ := profileQuery("PUBLIC", "PEOPLE", peopleCols, nameFormat, 100)
	if len(q) != 3 || p.Queries != 3 || q[1].SQL != peopleCount || q[2].SQL != exact {
		t.Fatalf("sent %+v (reported %d), want the catalogue, the count and the exact query", q, p.Queries)
	}
	if p.Rows != 4 || p.Columns[1].Nulls != 1 || p.Columns[0].Distinct != 4 {
		t.Errorf("profile %+v", p)
	}
	for _, c := range p.Columns {
		if len(c.Estimated) != 0 {
			t.Errorf("%s estimated %v", c.Name, c.Estimated)
		}
	}
}

// A sample that drew no rows (a small share of a table of few blocks)
// gives way to the exact query.
func TestSampledProfileEmptySample(t *testing.T) {
	f := newFake(t)
	f.answer = sampledAnswer("3000000", strs(
		0,
		0, 0, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil,
		0, 0, 0, nil, nil, 0,
		0, 0, nil, nil,
		0, 0, nil, nil,
	))
	s := openSampled(t, f)
	p, err := s.Profile(context.Background(), "PEOPLE", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	if len(q) != 4 || p.Queries != 4 || !strings.HasSuffix(q[2].SQL, " SAMPLE SYSTEM (3.34) SEED (20261127)") || strings.Contains(q[3].SQL, "SAMPLE") {
		t.Fatalf("sent %+v (reported %d), want the catalogue, the count, the sample and the exact query", q, p.Queries)
	}
	if p.Rows != 4 || p.Columns[0].Distinct != 4 || len(p.Columns[0].Estimated) != 0 {
		t.Errorf("profile %+v, want the exact query's", p)
	}
}

// Without SampledProfile no row count is sent.
func TestExactProfileSendsNoCount(t *testing.T) {
	f := newFake(t)
	f.answer = sampledAnswer("12345678", nil)
	s := openFake(t, f, creds(nil), nil, 10*time.Second)
	p, err := s.Profile(context.Background(), "PEOPLE", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	for _, q := range f.sent() {
		if q.SQL == peopleCount || strings.Contains(q.SQL, "SAMPLE") {
			t.Errorf("exact Profile sent %s", q.SQL)
		}
	}
	if p.Queries != 2 || len(p.Columns[0].Estimated) != 0 {
		t.Errorf("exact profile %+v", p)
	}
}

// The sample is seeded (sqlprofile.SampleSeed, PostgreSQL's seed): two
// profiles of an unchanged table send the very same sample, SAMPLE SYSTEM
// (p) SEED (20261127), so that their estimates do not move between scans.
func TestSampledProfileRepeatable(t *testing.T) {
	f := newFake(t)
	f.answer = sampledAnswer("12345678", strs(
		99_000,
		0, 98_000, 3, 12_345_601, 6.2e6, 3.5e6, 1e5, 6e5, 3e6, 6e6, 9e6, 1.17e7, 1.22e7,
		333, 990, 7, "AB-1234", "ZZ-9999", 48_000,
		0, 2, "false", "true",
		99_000, 0, nil, nil,
	))
	s := openSampled(t, f)
	var samples []string
	for range 2 {
		if _, err := s.Profile(context.Background(), "PEOPLE", nameFormat); err != nil {
			t.Fatalf("Profile: %v", err)
		}
	}
	for _, q := range f.sent() {
		if strings.Contains(q.SQL, " SAMPLE ") {
			samples = append(samples, q.SQL)
		}
	}
	if len(samples) != 2 || samples[0] != samples[1] || !strings.HasSuffix(samples[0], " SAMPLE SYSTEM (0.811) SEED (20261127)") {
		t.Errorf("samples %q, want the same seeded sample twice", samples)
	}
}

// A view or a materialized view is profiled by the exact query alone, as
// BigQuery's are: COUNT(*) would evaluate the view whole and the sample
// evaluate it again, and a view takes no seeded sample. The catalogue
// query tells it by its TABLE_TYPE.
func TestSampledProfileView(t *testing.T) {
	for _, view := range []string{"PEOPLE_VIEW", "PEOPLE_MVIEW"} {
		t.Run(view, func(t *testing.T) {
			f := newFake(t)
			f.answer = sampledAnswer("12345678", nil)
			s := openSampled(t, f)
			p, err := s.Profile(context.Background(), view, nameFormat)
			if err != nil {
				t.Fatalf("Profile: %v", err)
			}
			q := f.sent()
			exact, _, _ := profileQuery("PUBLIC", view, peopleCols, nameFormat, 100)
			if len(q) != 2 || p.Queries != 2 || q[0].SQL != columnsQuery || q[1].SQL != exact {
				t.Fatalf("sent %+v (reported %d), want the catalogue and the exact query alone", q, p.Queries)
			}
			if p.Rows != 4 || p.Columns[0].Distinct != 4 {
				t.Errorf("profile %+v, want the exact query's", p)
			}
			for _, c := range p.Columns {
				if len(c.Estimated) != 0 {
					t.Errorf("%s estimated %v", c.Name, c.Estimated)
				}
			}
		})
	}
	for typ, want := range map[string]bool{"BASE TABLE": true, "TEMPORARY TABLE": true, "VIEW": false, "MATERIALIZED VIEW": false,
		"EXTERNAL TABLE": false, "EVENT TABLE": false, "": false} {
		if got := sampleable(typ); got != want {
			t.Errorf("sampleable(%q) = %v, want %v", typ, got, want)
		}
	}
}

// A table that grew between the count and the sample (the sample counting
// more rows than the count) is counted again: the sample of a table of
// one micro-partition that drew it whole keeps its figures exact, with the
// rows it read.
func TestSampledProfileTableGrew(t *testing.T) {
	f := newFake(t)
	counts := []string{"150000", "1150000"}
	sampled := sampledAnswer("", strs(
		1_150_000,
		0, 1_150_000, 1, 1_150_000, 575_000.5, 331_976, 11_501, 57_501, 287_501, 575_001, 862_501, 1_092_501, 1_138_501,
		10, 20, 30, "AB-1234", "ZZ-9999", 1_000_000,
		0, 2, "false", "true",
		1_150_000, 0, nil, nil,
	))
	var mu sync.Mutex
	f.answer = func(r *http.Request, q query) (*result, string) {
		if q.SQL == peopleCount {
			mu.Lock()
			n := counts[0]
			counts = counts[1:]
			mu.Unlock()
			return &result{cols: []col{{"COUNT(*)", "fixed"}}, rows: [][]*string{{sp(n)}}}, ""
		}
		return sampled(r, q)
	}
	s := openSampled(t, f)
	p, err := s.Profile(context.Background(), "PEOPLE", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	if len(q) != 4 || p.Queries != 4 || q[1].SQL != peopleCount || !strings.HasSuffix(q[2].SQL, " SAMPLE SYSTEM (66.7) SEED (20261127)") || q[3].SQL != peopleCount {
		t.Fatalf("sent %+v (reported %d), want the catalogue, the count, the sample and the count again", q, p.Queries)
	}
	name := p.Columns[1]
	if p.Rows != 1_150_000 || name.Nulls != 10 || name.Empty != 20 || name.Distinct != 30 {
		t.Errorf("rows %d, NAME %+v; want the sample's figures as they are", p.Rows, name)
	}
	for _, c := range p.Columns {
		if len(c.Estimated) != 0 || c.Nulls+c.Empty > p.Rows {
			t.Errorf("%s estimated %v, nulls %d + empty %d of %d rows", c.Name, c.Estimated, c.Nulls, c.Empty, p.Rows)
		}
	}
}
