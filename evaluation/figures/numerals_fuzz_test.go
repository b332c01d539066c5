package figures

import (
	"math"
	"testing"

	"github.com/dqs/dqs/profile"
)

// FuzzNumerals reads any text as the profiler does (profile.NumberAs, both
// conventions) and as the oracle does, and requires the same answer: the
// same values are numbers, with the same value, in each convention.
func FuzzNumerals(f *testing.F) {
	for _, s := range []string{"1.234", "1,234", "1,234.5", "1.234,5", "12,5 %", "$1,000", "-$12", "€ 12,50", "1 234",
		"1\u00a0234,5", "1'234.50", "007", "0,5", "12.5%", "1e5", ".5", "5.", "1.234.567", "+1,234,567.89", "12,50 €", "£-3", "12 %"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, comma := range []bool{false, true} {
			got, ok := profile.NumberAs(v, comma)
			want, wantOK := oracleNumberAs(v, comma)
			if ok != wantOK || ok && got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("NumberAs(%q, comma %v) = %v, %v; the oracle reads %v, %v", v, comma, got, ok, want, wantOK)
			}
		}
	})
}

// oracleNumberAs is the oracle's reading of v as a number of a column of
// the given convention: a numeral, else a plain number.
func oracleNumberAs(v string, comma bool) (float64, bool) {
	if r := oracleNumeral(v); r.kind != numNone {
		switch {
		case r.kind == numPoint && comma, r.kind == numCommaD && !comma:
			return 0, false
		case comma:
			return r.cm, true
		}
		return r.pt, true
	}
	if x, ok := oracleInt(v); ok {
		return float64(x), true
	}
	return oracleFloat(v)
}

// FuzzDatetimes: the profiler and the oracle take the same texts as
// date-times, ISO and spreadsheet slash forms alike.
func FuzzDatetimes(f *testing.F) {
	for _, s := range []string{"3/4/13 14:03", "12/31/2024 11:59:59 PM", "31/12/2024 23:59", "2024-01-31T10:00:00Z", "1/2/13 1:03",
		"3/4/13 0:00 AM", "13/13/13 10:00", "2024-01-31 10:00:00.123+02:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		_, iso := oracleDatetime(v)
		_, _, d, m := oracleSlashDatetime(v)
		if got, want := profile.ParsesAs(profile.TypeDatetime, v), iso || d || m; got != want {
			t.Fatalf("ParsesAs(datetime, %q) = %v, the oracle says %v", v, got, want)
		}
	})
}
