package colgen

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The check digits are tested against published examples rather than
// against a second implementation of the same rule.
func TestCheckDigits(t *testing.T) {
	born := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	fnr, ok := noFnr(born(1965, 7, 15), false, 5)
	g := New(rand.New(rand.NewPCG(1, 2)))
	for _, tc := range []struct{ name, got, want string }{
		{"Luhn", LuhnComplete("7992739871"), "79927398713"},
		{"Luhn personnummer", LuhnComplete("811218987"), "8112189876"},
		{"IBAN GB", IBAN("GB", "WEST12345698765432"), "GB82WEST12345698765432"},
		{"IBAN DE", IBAN("DE", "370400440532013000"), "DE89370400440532013000"},
		{"henkilötunnus", FIHetu(born(1952, 10, 13), "-", 308), "131052-308T"},
		{"fødselsnummer", fnr, "15076500565"},
		{"EAN-13", g.EAN13("400638133393"), "4006381333931"},
		{"card 15", FormatPAN("378282246310005", "space"), "3782 822463 10005"},
		{"card 16", FormatPAN("4111111111111111", "dash"), "4111-1111-1111-1111"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if !ok {
		t.Error("noFnr: ok = false for a valid number")
	}
	// 010101003 would need a first control digit of 10.
	if _, ok := noFnr(born(1901, 1, 1), false, 3); ok {
		t.Error("noFnr: ok = true for a number that is never issued")
	}
}

// TestDateBounds: Date includes both ends of its years, Day leaves out its
// end.
func TestDateBounds(t *testing.T) {
	g := New(rand.New(rand.NewPCG(7, 8)))
	first, last := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2020, 12, 31, 0, 0, 0, 0, time.UTC)
	var sawFirst, sawLast bool
	for range 20000 {
		d := g.Date(2020, 2020)
		if d.Before(first) || d.After(last) {
			t.Fatalf("Date(2020, 2020) = %v", d)
		}
		sawFirst = sawFirst || d.Equal(first)
		sawLast = sawLast || d.Equal(last)
		if d := g.Day(first, last); !d.Before(last) {
			t.Fatalf("Day(%v, %v) = %v", first, last, d)
		}
	}
	if !sawFirst || !sawLast {
		t.Errorf("Date(2020, 2020) never drew the first (%v) or the last day (%v)", sawFirst, sawLast)
	}
}
