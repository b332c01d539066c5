package bigquery

// A sampled profile (Options.SampledProfile) against the FAKE BigQuery of
// bigquery_test.go: BigQuery cannot run here, so these tests check the
// SQL the connector sends (the row count, then the aggregate query over a
// TABLESAMPLE, or the exact query) and how it reads the canned answers,
// not what BigQuery's sampling draws.

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dqs/dqs/connectors/connectortest"
)

var nameFormat = map[string]string{"name": `^[A-Z]{2}-[0-9]{4}$`}

// A sample of 104,729 rows of a table of 10,000,000: the figures of the
// sample, scaled where they are counts.
func TestSampledProfile(t *testing.T) {
	f := newFake(t)
	f.count = 10_000_000
	qs := make([]float64, 101)
	for i := range qs {
		qs[i] = float64(i * 100_000)
	}
	f.sampledRow = []any{
		int64(104_729),                                             // sampled rows
		int64(0), int64(104_729), "17", "9999987", 5e6, 2.88e6, qs, // id: unique in the sample
		int64(1_000), int64(2_000), int64(50), "AB-1234", "ZZ-9999", int64(50_864), // name
		int64(0), int64(2), "false", "true", // active
		int64(104_729), int64(0), nil, nil, // created: null in the sample
	}
	s, _ := openFakeWith(t, f, "good", true)
	p, err := s.Profile(context.Background(), "people", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	if len(q) != 2 || p.Queries != 2 {
		t.Fatalf("sampled Profile sent %d queries (reported %d), want 2: %+v", len(q), p.Queries, q)
	}
	if q[0].SQL != "SELECT COUNT(*) FROM `proj`.`ds`.`people`" || len(q[0].Params) != 0 {
		t.Errorf("first query %+v, want the row count", q[0])
	}
	// 100·100,000/10,000,000 = 1 percent for 4 columns.
	want, _, _ := profileQuery(tableRef{"proj", "ds", "people"}, goldenCols, nameFormat, 1)
	if q[1].SQL != want || !strings.HasSuffix(q[1].SQL, "FROM `proj`.`ds`.`people` TABLESAMPLE SYSTEM (1 PERCENT)") ||
		!strings.Contains(q[1].SQL, "COUNT(DISTINCT `id`)") || strings.Contains(q[1].SQL, "APPROX_COUNT_DISTINCT") {
		t.Errorf("sampled query\n got %s\nwant %s", q[1].SQL, want)
	}
	if q[1].Params["p0"] != `^(?:^[A-Z]{2}-[0-9]{4}$)$` || strings.Contains(q[1].SQL, "[A-Z]") {
		t.Errorf("format not sent as a parameter: %+v", q[1].Params)
	}
	if p.Rows != 10_000_000 {
		t.Errorf("rows %d, want the count's", p.Rows)
	}
	id, name, active, created := p.Columns[0], p.Columns[1], p.Columns[2], p.Columns[3]
	// Unique in the sample: unique in the table.
	if id.Nulls != 0 || id.Distinct != 10_000_000 || *id.Min != "17" || *id.Max != "9999987" || *id.Mean != 5e6 ||
		*id.StdDev != 2.88e6 || *id.Median != 5e6 || id.Quantiles["p99"] != 9.9e6 {
		t.Errorf("id %+v", id)
	}
	// round(1,000·10,000,000/104,729) = 95,485; 50 values all seen.
	if name.Nulls != 95_485 || name.Empty != 190_969 || name.Distinct != 50 || *name.Min != "AB-1234" || *name.Max != "ZZ-9999" ||
		name.FormatConformance == nil || math.Abs(*name.FormatConformance-50_864.0/101_729) > 1e-12 {
		t.Errorf("name %+v", name)
	}
	if active.Nulls != 0 || active.Distinct != 2 {
		t.Errorf("active %+v", active)
	}
	if created.Nulls != 10_000_000 || created.Distinct != 0 || created.Min != nil {
		t.Errorf("created %+v", created)
	}
	connectortest.CheckEstimated(t, p, "[nulls distinct min max mean stddev median quantiles]",
		"[nulls empty distinct min max format_conformance]", "[nulls distinct min max]", "[nulls distinct]")
}

// A table no larger than the sample is read whole by the exact query:
// figures exact, nothing estimated.
func TestSampledProfileSmallTable(t *testing.T) {
	f := newFake(t)
	f.count = 4
	f.profileRow = peopleRow()
	s, _ := openFakeWith(t, f, "good", true)
	p, err := s.Profile(context.Background(), "people", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	exact, _, _ := profileQuery(tableRef{"proj", "ds", "people"}, goldenCols, nameFormat, 100)
	if len(q) != 2 || p.Queries != 2 || q[0].SQL != "SELECT COUNT(*) FROM `proj`.`ds`.`people`" || q[1].SQL != exact {
		t.Fatalf("sent %+v (reported %d), want the count and the exact query", q, p.Queries)
	}
	if p.Rows != 4 || p.Columns[1].Nulls != 1 || p.Columns[1].Distinct != 2 {
		t.Errorf("profile %+v", p)
	}
	for _, c := range p.Columns {
		if len(c.Estimated) != 0 {
			t.Errorf("%s estimated %v", c.Name, c.Estimated)
		}
	}
}

// A sample that drew no rows gives way to the exact query.
func TestSampledProfileEmptySample(t *testing.T) {
	f := newFake(t)
	f.count = 1_000_000_000
	f.profileRow = peopleRow()
	f.sampledRow = []any{
		int64(0),
		int64(0), int64(0), nil, nil, nil, nil, nil,
		int64(0), int64(0), int64(0), nil, nil, int64(0),
		int64(0), int64(0), nil, nil,
		int64(0), int64(0), nil, nil,
	}
	s, _ := openFakeWith(t, f, "good", true)
	p, err := s.Profile(context.Background(), "people", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	if len(q) != 3 || p.Queries != 3 || !strings.HasSuffix(q[1].SQL, " TABLESAMPLE SYSTEM (0.01 PERCENT)") || strings.Contains(q[2].SQL, "TABLESAMPLE") {
		t.Fatalf("sent %+v (reported %d), want the count, the sample and the exact query", q, p.Queries)
	}
	if p.Rows != 4 || p.Columns[0].Distinct != 4 || len(p.Columns[0].Estimated) != 0 {
		t.Errorf("profile %+v, want the exact query's", p)
	}
}

// A view is profiled by the exact query alone: TABLESAMPLE does not
// sample it by blocks, and COUNT(*) would read it whole.
func TestSampledProfileView(t *testing.T) {
	f := newFake(t)
	f.count = 10_000_000
	f.profileRow = peopleRow()
	s, _ := openFakeWith(t, f, "good", true)
	p, err := s.Profile(context.Background(), "people_view", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	exact, _, _ := profileQuery(tableRef{"proj", "ds", "people_view"}, goldenCols, nameFormat, 100)
	if len(q) != 1 || p.Queries != 1 || q[0].SQL != exact {
		t.Errorf("sent %+v (reported %d), want the exact query alone", q, p.Queries)
	}
}

// A table of a single block (under about 1 GB) is read whole by its
// TABLESAMPLE: the sample is the table, its figures exact.
func TestSampledProfileOneBlock(t *testing.T) {
	f := newFake(t)
	f.count = 150_000
	f.sampledRow = peopleRow()
	f.sampledRow[0] = int64(150_000)
	s, _ := openFakeWith(t, f, "good", true)
	p, err := s.Profile(context.Background(), "people", nameFormat)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	if len(q) != 2 || p.Queries != 2 || !strings.HasSuffix(q[1].SQL, " TABLESAMPLE SYSTEM (66.7 PERCENT)") {
		t.Fatalf("sent %+v (reported %d), want the count and the sample", q, p.Queries)
	}
	if p.Rows != 150_000 || p.Columns[1].Nulls != 1 || p.Columns[1].Distinct != 2 {
		t.Errorf("profile %+v, want the sample's figures unscaled", p)
	}
	for _, c := range p.Columns {
		if len(c.Estimated) != 0 {
			t.Errorf("%s estimated %v", c.Name, c.Estimated)
		}
	}
}
