package retention

import (
	"math/rand/v2"
	"testing"
	"time"
)

const day = 24 * time.Hour

func utcTime(y int, m time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, m, d, h, mi, s, 0, time.UTC)
}

func TestDays(t *testing.T) {
	cases := []struct {
		mode string
		days int
		want int
	}{
		{AnalysisOnly, 1, 1},
		{AnalysisOnly, 30, 1},
		{AnalysisOnly, 365, 1},
		{AnalysisOnly, 0, 1},
		{ShortTerm, 1, 1},
		{ShortTerm, 30, 30},
		{ShortTerm, 365, 365},
		{FullRetention, 0, 0},
		{FullRetention, 30, 0},
		{FullRetention, 365, 0},
	}
	for _, c := range cases {
		if got := Days(c.mode, c.days); got != c.want {
			t.Errorf("Days(%q, %d) = %d, want %d", c.mode, c.days, got, c.want)
		}
	}
}

func TestProductionPolicy(t *testing.T) {
	p := Production()
	if p.Day != day || p.Unaligned {
		t.Fatalf("Production() = %+v, want 24h days aligned to 02:00 UTC", p)
	}
	if SweepHourUTC != 2 {
		t.Fatalf("SweepHourUTC = %d, want 2", SweepHourUTC)
	}
}

func TestExpiresAt(t *testing.T) {
	plus5 := time.FixedZone("UTC+5", 5*60*60)
	minus8 := time.FixedZone("UTC-8", -8*60*60)
	completed := utcTime(2026, time.March, 10, 15, 4, 5)
	cases := []struct {
		name      string
		policy    Policy
		completed time.Time
		mode      string
		days      int
		want      time.Time
		ok        bool
	}{
		{"analysis_only is one day", Production(), completed, AnalysisOnly, 1, completed.Add(day), true},
		{"analysis_only ignores days=30", Production(), completed, AnalysisOnly, 30, completed.Add(day), true},
		{"analysis_only ignores days=365", Production(), completed, AnalysisOnly, 365, completed.Add(day), true},
		{"analysis_only ignores days=0", Production(), completed, AnalysisOnly, 0, completed.Add(day), true},
		{"short_term 1 day", Production(), completed, ShortTerm, 1, completed.Add(day), true},
		{"short_term 30 days", Production(), completed, ShortTerm, 30, utcTime(2026, time.April, 9, 15, 4, 5), true},
		{"short_term 365 days", Production(), completed, ShortTerm, 365, utcTime(2027, time.March, 10, 15, 4, 5), true},
		{"short_term 365 days over a leap day", Production(), utcTime(2028, time.January, 1, 0, 0, 0), ShortTerm, 365,
			utcTime(2028, time.December, 31, 0, 0, 0), true},
		{"full_retention never expires", Production(), completed, FullRetention, 0, time.Time{}, false},
		{"full_retention never expires whatever days says", Production(), completed, FullRetention, 365, time.Time{}, false},
		{"non-UTC completion (+05:00)", Production(), completed.In(plus5), ShortTerm, 2, completed.Add(2 * day), true},
		{"non-UTC completion (-08:00)", Production(), completed.In(minus8), AnalysisOnly, 7, completed.Add(day), true},
		{"test policy: one shortened day", ForTests(time.Minute), completed, AnalysisOnly, 30, completed.Add(time.Minute), true},
		{"test policy: 30 shortened days", ForTests(time.Second), completed.In(plus5), ShortTerm, 30, completed.Add(30 * time.Second), true},
		{"test policy: full_retention", ForTests(time.Second), completed, FullRetention, 30, time.Time{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := c.policy.ExpiresAt(c.completed, c.mode, c.days)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (at %v)", ok, c.ok, got)
			}
			if !ok {
				if !got.IsZero() {
					t.Fatalf("a never-expiring job got expiry %v", got)
				}
				return
			}
			if !got.Equal(c.want) {
				t.Fatalf("ExpiresAt = %v, want %v", got, c.want)
			}
			if got.Location() != time.UTC {
				t.Fatalf("ExpiresAt location = %v, want UTC", got.Location())
			}
		})
	}
}

func TestDeleteAt(t *testing.T) {
	plus5 := time.FixedZone("UTC+5", 5*60*60)
	minus8 := time.FixedZone("UTC-8", -8*60*60)
	cases := []struct {
		name    string
		policy  Policy
		expires time.Time
		want    time.Time
	}{
		{"exactly 02:00:00 deletes at that instant", Production(),
			utcTime(2026, time.March, 10, 2, 0, 0), utcTime(2026, time.March, 10, 2, 0, 0)},
		{"01:59:59 deletes the same day at 02:00", Production(),
			utcTime(2026, time.March, 10, 1, 59, 59), utcTime(2026, time.March, 10, 2, 0, 0)},
		{"midnight deletes the same day at 02:00", Production(),
			utcTime(2026, time.March, 10, 0, 0, 0), utcTime(2026, time.March, 10, 2, 0, 0)},
		{"02:00:01 deletes the next day at 02:00", Production(),
			utcTime(2026, time.March, 10, 2, 0, 1), utcTime(2026, time.March, 11, 2, 0, 0)},
		{"one nanosecond after 02:00 waits a day", Production(),
			time.Date(2026, time.March, 10, 2, 0, 0, 1, time.UTC), utcTime(2026, time.March, 11, 2, 0, 0)},
		{"23:59:59 deletes the next day at 02:00", Production(),
			utcTime(2026, time.March, 10, 23, 59, 59), utcTime(2026, time.March, 11, 2, 0, 0)},
		{"end of month rolls over", Production(),
			utcTime(2026, time.February, 28, 12, 0, 0), utcTime(2026, time.March, 1, 2, 0, 0)},
		{"end of year rolls over", Production(),
			utcTime(2026, time.December, 31, 3, 0, 0), utcTime(2027, time.January, 1, 2, 0, 0)},
		{"leap day", Production(),
			utcTime(2028, time.February, 28, 2, 30, 0), utcTime(2028, time.February, 29, 2, 0, 0)},
		// 01:30 at +05:00 is 20:30 UTC the day before: the UTC day decides.
		{"non-UTC input (+05:00) uses the UTC day", Production(),
			time.Date(2026, time.March, 10, 1, 30, 0, 0, plus5), utcTime(2026, time.March, 10, 2, 0, 0)},
		// 19:00 at -08:00 is 03:00 UTC the next day: past that day's 02:00.
		{"non-UTC input (-08:00) uses the UTC day", Production(),
			time.Date(2026, time.March, 10, 19, 0, 0, 0, minus8), utcTime(2026, time.March, 12, 2, 0, 0)},
		// 18:00 at -08:00 is exactly 02:00 UTC.
		{"non-UTC input at 02:00 UTC exactly", Production(),
			time.Date(2026, time.March, 10, 18, 0, 0, 0, minus8), utcTime(2026, time.March, 11, 2, 0, 0)},
		{"test policy: no alignment", ForTests(time.Minute),
			utcTime(2026, time.March, 10, 13, 7, 9), utcTime(2026, time.March, 10, 13, 7, 9)},
		{"test policy: no alignment, non-UTC input", ForTests(time.Minute),
			time.Date(2026, time.March, 10, 13, 7, 9, 5, plus5), time.Date(2026, time.March, 10, 8, 7, 9, 5, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.policy.DeleteAt(c.expires)
			if !got.Equal(c.want) {
				t.Fatalf("DeleteAt(%v) = %v, want %v", c.expires, got.UTC(), c.want)
			}
			if got.Location() != time.UTC {
				t.Fatalf("DeleteAt location = %v, want UTC", got.Location())
			}
		})
	}
}

// TestExpiresAtThenDeleteAt follows a job from completion to deletion with
// the production policy.
func TestExpiresAtThenDeleteAt(t *testing.T) {
	p := Production()
	completed := utcTime(2026, time.June, 1, 17, 45, 0)
	exp, ok := p.ExpiresAt(completed, AnalysisOnly, 90)
	if !ok || !exp.Equal(utcTime(2026, time.June, 2, 17, 45, 0)) {
		t.Fatalf("ExpiresAt = %v, %v", exp, ok)
	}
	if got := p.DeleteAt(exp); !got.Equal(utcTime(2026, time.June, 3, 2, 0, 0)) {
		t.Fatalf("DeleteAt = %v", got)
	}
}

// TestDeleteAtProperties checks, over many random completion times, modes
// and zones, that a file is never deleted before it expires, at most a day
// after, and always at 02:00:00 UTC.
func TestDeleteAtProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261121, 4))
	p := Production()
	start := utcTime(2000, time.January, 1, 0, 0, 0).Unix()
	end := utcTime(2100, time.January, 1, 0, 0, 0).Unix()
	modes := []string{AnalysisOnly, ShortTerm}
	aligned := 0
	for i := 0; i < 20000; i++ {
		zone := time.FixedZone("z", (rng.IntN(27)-12)*60*60+rng.IntN(4)*15*60)
		completed := time.Unix(start+rng.Int64N(end-start), rng.Int64N(int64(time.Second))).In(zone)
		if i%50 == 0 {
			// Land exactly on the sweep hour now and then.
			completed = time.Date(completed.Year(), completed.Month(), completed.Day(), SweepHourUTC, 0, 0, 0, time.UTC).In(zone)
		}
		mode := modes[rng.IntN(len(modes))]
		days := MinDays + rng.IntN(MaxDays-MinDays+1)
		exp, ok := p.ExpiresAt(completed, mode, days)
		if !ok {
			t.Fatalf("%s/%d never expires", mode, days)
		}
		if want := completed.Add(time.Duration(Days(mode, days)) * day); !exp.Equal(want) {
			t.Fatalf("ExpiresAt(%v, %s, %d) = %v, want %v", completed, mode, days, exp, want)
		}
		del := p.DeleteAt(exp)
		if del.Before(exp) {
			t.Fatalf("DeleteAt(%v) = %v is before the expiry", exp, del)
		}
		if gap := del.Sub(exp); gap >= day {
			t.Fatalf("DeleteAt(%v) = %v is %v after the expiry", exp, del, gap)
		}
		if del.Location() != time.UTC || del.Hour() != SweepHourUTC || del.Minute() != 0 || del.Second() != 0 || del.Nanosecond() != 0 {
			t.Fatalf("DeleteAt(%v) = %v is not at 02:00:00 UTC", exp, del)
		}
		if del.Equal(exp) {
			aligned++
		}
		// Any expiry in the zone, not only completion plus whole days.
		e2 := time.Unix(start+rng.Int64N(end-start), rng.Int64N(int64(time.Second))).In(zone)
		d2 := p.DeleteAt(e2)
		if d2.Before(e2) || d2.Sub(e2) >= day || d2.Location() != time.UTC ||
			d2.Hour() != SweepHourUTC || d2.Minute() != 0 || d2.Second() != 0 || d2.Nanosecond() != 0 {
			t.Fatalf("DeleteAt(%v) = %v", e2, d2)
		}
	}
	if aligned == 0 {
		t.Fatal("no sample expired exactly at 02:00 UTC; the edge case was not exercised")
	}
}
