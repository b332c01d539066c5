package main

import (
	"bytes"
	"strings"
	"testing"
)

// Without a PostgreSQL to measure, the bench says so and succeeds, so that
// `make bench` runs on a machine without one. Port 1 on loopback refuses.
func TestNoPostgreSQLIsNoFailure(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-pg", "postgres://postgres@127.0.0.1:1/test?sslmode=disable"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr %q", code, errb.String())
	}
	if !strings.Contains(out.String(), "needs PostgreSQL") {
		t.Errorf("output %q does not say that the bench needs PostgreSQL", out.String())
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		ratio   float64
		rssKiB  int64
		heap    uint64
		prefix  string
		contain string
	}{
		{2.5, 30 << 10, 0, "verdict (exact mode): PASS", "target <= 3x: met"},
		{3.5, 30 << 10, 0, "verdict (exact mode): MISS", "target <= 3x: missed"},
		{2.5, 70 << 10, 0, "verdict (exact mode): MISS", "peak RSS 70.0 MiB (target < 64 MiB: missed)"},
		{1, -1, 10 << 20, "verdict (exact mode): PASS", "peak Go heap 10.0 MiB"},
	} {
		v := verdict("exact mode", c.ratio, c.rssKiB, c.heap)
		if !strings.HasPrefix(v, c.prefix) || !strings.Contains(v, c.contain) || strings.Contains(v, "\n") {
			t.Errorf("verdict(%v, %d, %d) = %q, want one line starting %q holding %q", c.ratio, c.rssKiB, c.heap, v, c.prefix, c.contain)
		}
	}
}

func TestPeakRSSIsRead(t *testing.T) {
	// Linux reports VmHWM; elsewhere -1 stands for unknown.
	if v := peakRSSKiB(); v == 0 || v < -1 {
		t.Errorf("peakRSSKiB() = %d", v)
	}
}
