package analysis

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
)

// TestClassifyColumnsInParallel checks that classifying columns concurrently
// gives each column the result classifying it alone gives, in column order.
func TestClassifyColumnsInParallel(t *testing.T) {
	samples := map[string][]string{
		"email":       {"ann@example.com", "bo.k@mail.de", "x_y@uol.com.br"},
		"phone":       {"+14155550123", "+442079460958", "+33142685300"},
		"first_name":  {"Anna", "Björn", "Chloé", "Dmitri"},
		"order_total": {"12.50", "7.00", "1999.99"},
		"status":      {"active", "closed", "pending"},
		"notes":       {"call back tomorrow", "prefers e-mail"},
		"created_at":  {"2021-04-06T14:27:04Z", "2022-02-27T19:31:11Z"},
		"iban":        {"DE89370400440532013000", "GB82WEST12345698765432"},
	}
	var cols []profile.Column
	for round := range 5 {
		for name, sample := range samples {
			var values []string // enough values for the detectors to decide
			for len(values) < 60 {
				values = append(values, sample...)
			}
			cols = append(cols, profile.Column{Name: fmt.Sprintf("%s_%d", name, round), Sample: values})
		}
	}
	got := classifyColumns(cols)
	if len(got) != len(cols) {
		t.Fatalf("%d results for %d columns", len(got), len(cols))
	}
	personal := 0
	for i, c := range cols {
		want := classify.Column(c.Name, c.Sample)
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("column %s: got %+v, want %+v", c.Name, got[i], want)
		}
		if classify.IsPersonal(want) {
			personal++
		}
	}
	if personal == 0 {
		t.Error("no column classified as personal: the comparison says nothing")
	}
	if len(classifyColumns(nil)) != 0 {
		t.Error("results for no columns")
	}
}
