package profile

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

func TestParseInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"+7", 7, true}, {"42", 42, true}, {"-42", -42, true},
		{"9223372036854775807", 1<<63 - 1, true}, {"-9223372036854775808", -1 << 63, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false}, {"99999999999999999999", 0, false},
		{"007", 0, false}, {"00", 0, false}, {"", 0, false}, {"-", 0, false}, {"1.0", 0, false},
		{"1e3", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1_000", 0, false}, {"١", 0, false},
	} {
		got, ok := parseInt(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseInt(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseFloat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1.5", 1.5, true}, {"-0.25", -0.25, true}, {".5", 0.5, true}, {"5.", 5, true}, {"1e3", 1000, true},
		{"-2.5E-2", -0.025, true}, {"007", 0, false}, {"00.5", 0, false}, {"0.5", 0.5, true}, {"-0.0", 0, true}, {"12", 12, true}, {"+3.0", 3, true},
		{"1,5", 0, false}, {"inf", 0, false}, {"NaN", 0, false}, {"0x1p3", 0, false}, {".", 0, false},
		{"1e", 0, false}, {"e5", 0, false}, {"1.2.3", 0, false}, {"1e999", 0, false}, {"", 0, false}, {"- 1", 0, false},
	} {
		got, ok := parseFloat(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseFloat(%q) = %g, %v; want %g, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseBool(t *testing.T) {
	for _, s := range []string{"true", "TRUE", "Yes", "t", "Y", "1"} {
		if v, ok := parseBool(s); !ok || !v {
			t.Errorf("parseBool(%q) = %v, %v", s, v, ok)
		}
	}
	for _, s := range []string{"false", "No", "F", "n", "0"} {
		if v, ok := parseBool(s); !ok || v {
			t.Errorf("parseBool(%q) = %v, %v", s, v, ok)
		}
	}
	for _, s := range []string{"", "truee", "2", "on", "nope", "yes!"} {
		if _, ok := parseBool(s); ok {
			t.Errorf("parseBool(%q) accepted", s)
		}
	}
}

func TestParseDate(t *testing.T) {
	day := func(s string) int64 {
		tm, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Unix() / 86400
	}
	for _, tc := range []struct {
		in       string
		dmy, mdy string
		cls      dateClass
		ok       bool
	}{
		{"2024-02-29", "2024-02-29", "2024-02-29", dateUnambiguous, true},
		{"2024/12/31", "2024-12-31", "2024-12-31", dateUnambiguous, true},
		{"31/12/2024", "2024-12-31", "2024-12-31", dateDMYOnly, true},
		{"12/31/2024", "2024-12-31", "2024-12-31", dateMDYOnly, true},
		{"02/01/2006", "2006-01-02", "2006-02-01", dateEither, true},
		{"1969-07-20", "1969-07-20", "1969-07-20", dateUnambiguous, true},
		{"0001-01-01", "0001-01-01", "0001-01-01", dateUnambiguous, true},
		{"2023-02-29", "", "", 0, false}, {"2024-13-01", "", "", 0, false}, {"13/13/2024", "", "", 0, false},
		{"2024-1-01", "", "", 0, false}, {"2024-01-01T", "", "", 0, false}, {"2024.01.01", "", "", 0, false},
		{"31.12.2024", "2024-12-31", "2024-12-31", dateUnambiguous, true},
		{"02.01.2006", "2006-01-02", "2006-01-02", dateUnambiguous, true}, // dotted: day first only
		{"29.02.2023", "", "", 0, false}, {"12.31.2024", "", "", 0, false}, {"1.2.2024", "", "", 0, false}, {"31.12-2024", "", "", 0, false},
	} {
		dmy, mdy, cls, ok := parseDate(tc.in)
		if ok != tc.ok {
			t.Errorf("parseDate(%q) ok = %v", tc.in, ok)
			continue
		}
		if ok && (dmy != day(tc.dmy) || mdy != day(tc.mdy) || cls != tc.cls) {
			t.Errorf("parseDate(%q) = %d, %d, %d; want %d, %d, %d", tc.in, dmy, mdy, cls, day(tc.dmy), day(tc.mdy), tc.cls)
		}
	}
}

func TestParseDatetime(t *testing.T) {
	for _, s := range []string{
		"2006-01-02T15:04:05Z", "2006-01-02T15:04:05+07:00", "2006-01-02T15:04:05.999999999-03:30",
		"2006-01-02 15:04:05", "2024-02-29t00:00:00z", "1960-12-31T23:59:59.5Z",
	} {
		sec, nsec, ok := parseDatetime(s)
		if !ok {
			t.Errorf("parseDatetime(%q) rejected", s)
			continue
		}
		layout := time.RFC3339Nano
		if s[10] == ' ' {
			layout = "2006-01-02 15:04:05"
		}
		want, err := time.Parse(layout, s)
		if err != nil {
			want, err = time.Parse(time.RFC3339Nano, "2024-02-29T00:00:00Z")
			if err != nil || s != "2024-02-29t00:00:00z" {
				t.Fatalf("reference parse of %q: %v", s, err)
			}
		}
		if sec != want.Unix() || nsec != int32(want.Nanosecond()) {
			t.Errorf("parseDatetime(%q) = %d.%09d; want %d.%09d", s, sec, nsec, want.Unix(), want.Nanosecond())
		}
	}
	for _, s := range []string{
		"2006-01-02", "2006-01-02T25:00:00Z", "2006-02-30 10:00:00", "2006-01-02T15:04:05+0700",
		"2006-01-02T15:04:05.Z", "2006-01-02T15:04:05.1234567890Z", "2006-01-02X15:04:05", "2006-01-02 15:04:05 ",
	} {
		if _, _, ok := parseDatetime(s); ok {
			t.Errorf("parseDatetime(%q) accepted", s)
		}
	}
}

func TestShape(t *testing.T) {
	for _, tc := range []struct {
		in, fine, coarse string
		runes            int
		blank            bool
	}{
		{"Aaaa9999", "A+9+", "X+", 8, false},
		{"AB-1234", "A+-9+", "X+-X+", 7, false},
		{"-12.50", "9+.9+", "X+.X+", 6, false},
		{"+33 6 12", "9+ 9+ 9+", "X+ X+ X+", 8, false},
		{"jo.doe@x.org", "A+.A+@A+.A+", "X+.X+@X+.X+", 12, false},
		{"550e8400-e29b-41d4-a716-446655440000", "9+A+9+-A+9+A+-9+A+9+-A+9+-9+", "X+-X+-X+-X+-X+", 36, false},
		{"Zoë  Ünal", "A+ A+", "X+ X+", 9, false},
		{"a\t\tb", "A+ A+", "X+ X+", 4, false},
		{"--", "--", "--", 2, false},
		{"", "", "", 0, true},
		{" \t ", " ", " ", 3, true},
		{"€5", "€9+", "€X+", 2, false},
	} {
		f, c, n, blank := shape(nil, nil, tc.in)
		if string(f) != tc.fine || string(c) != tc.coarse || n != tc.runes || blank != tc.blank {
			t.Errorf("shape(%q) = %q, %q, %d, %v; want %q, %q, %d, %v", tc.in, f, c, n, blank, tc.fine, tc.coarse, tc.runes, tc.blank)
		}
	}
	long := ""
	for range 50 {
		long += "a-"
	}
	f, _, _, _ := shape(nil, nil, long)
	if len(f) > maxSigLen+3 || string(f[len(f)-3:]) != "…" {
		t.Errorf("long signature not cut: %q", f)
	}
	if !MatchesFormat("X+-X+", "ab-12") || !MatchesFormat("A+-9+", "ab-12") || MatchesFormat("9+", "ab") {
		t.Error("MatchesFormat")
	}
}

func TestParsesAs(t *testing.T) {
	for _, tc := range []struct {
		typ, v string
		want   bool
	}{
		{TypeInteger, "12", true}, {TypeInteger, "1.2", false}, {TypeFloat, "1.2", true}, {TypeFloat, "x", false},
		{TypeBoolean, "Y", true}, {TypeBoolean, "2", false}, {TypeDate, "31/12/2024", true}, {TypeDate, "2024-12-31 00:00:00", false},
		{TypeDatetime, "2024-12-31 00:00:00", true}, {TypeString, "anything", true}, {TypeEmpty, "  ", true}, {"nope", "1", false},
	} {
		if got := ParsesAs(tc.typ, tc.v); got != tc.want {
			t.Errorf("ParsesAs(%q, %q) = %v", tc.typ, tc.v, got)
		}
	}
}

// decimalFloat's exact path must give strconv.ParseFloat's value, bit for
// bit, on every decimal it takes.
func TestDecimalFloatMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		return string(b)
	}
	for range 300_000 {
		intPart := digits(rng.IntN(9))
		if len(intPart) > 1 && intPart[0] == '0' {
			intPart = "1" + intPart[1:]
		}
		s := intPart + "." + digits(rng.IntN(17))
		if rng.IntN(3) == 0 {
			s = "-" + s
		}
		got, syntax, ok := decimalFloat(s)
		if s == "." || s == "-." {
			if syntax || ok {
				t.Fatalf("decimalFloat(%q) accepted", s)
			}
			continue
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || !syntax || !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("decimalFloat(%q) = %v, %v, %v; strconv: %v, %v", s, got, syntax, ok, want, err)
		}
	}
}

func TestParseSlashDatetime(t *testing.T) {
	at := func(s string) int64 {
		tm, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Unix()
	}
	for _, tc := range []struct {
		in       string
		dmy, mdy string
		cls      dateClass
	}{
		{"3/4/13 14:03", "2013-04-03 14:03:00", "2013-03-04 14:03:00", dateEither},
		{"1/2/13 1:03", "2013-02-01 01:03:00", "2013-01-02 01:03:00", dateEither},
		{"31/12/2024 23:59:59", "2024-12-31 23:59:59", "2024-12-31 23:59:59", dateDMYOnly},
		{"12/31/2024 11:59:59 PM", "2024-12-31 23:59:59", "2024-12-31 23:59:59", dateMDYOnly},
		{"12/31/2024 12:00 am", "2024-12-31 00:00:00", "2024-12-31 00:00:00", dateMDYOnly},
		{"12/31/99 12:00PM", "1999-12-31 12:00:00", "1999-12-31 12:00:00", dateMDYOnly},
		{"05/05/68 00:00", "2068-05-05 00:00:00", "2068-05-05 00:00:00", dateEither},
	} {
		dmy, mdy, cls, ok := parseSlashDatetime(tc.in)
		if !ok || dmy != at(tc.dmy) || mdy != at(tc.mdy) || cls != tc.cls {
			t.Errorf("parseSlashDatetime(%q) = %d, %d, %d, %v; want %d, %d, %d", tc.in, dmy, mdy, cls, ok, at(tc.dmy), at(tc.mdy), tc.cls)
		}
	}
	for _, in := range []string{"3/4/13", "3/4/13 14:3", "3/4/13 24:00", "13/13/13 10:00", "3/4/135 10:00", "3/4/1 10:00",
		"3/4/13 13:00 PM", "3/4/13 0:00 AM", "3/4/13 10:00 XM", "3/4/13 10:60", "3/4/13  10:00", "3/4/13T10:00", "3-4-13 10:00",
		"3/4/13 10:00:60", "123/4/13 10:00", "3/4/13 10:00 PMX", "2013-03-04 10:00"} {
		if _, _, _, ok := parseSlashDatetime(in); ok {
			t.Errorf("parseSlashDatetime(%q) accepted", in)
		}
	}
}
