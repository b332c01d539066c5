package contracts

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzImportODCS feeds Import any bytes: it must not panic, must answer
// quickly, and whatever it imports must be valid rules that Export and
// Import carry unchanged.
func FuzzImportODCS(f *testing.F) {
	if doc, err := os.ReadFile("testdata/orders.odcs.yaml"); err == nil {
		f.Add(doc, "orders")
		f.Add(doc, "")
	}
	f.Add([]byte(`{"schema":[{"name":"t","quality":[{"metric":"rowCount","mustBeBetween":[1,2]}]}]}`), "t")
	f.Add([]byte("schema:\n- name: t\n  properties:\n  - name: c\n    quality:\n    - {metric: nullValues, mustBeLessThan: 1.5, unit: percent}\n    - {type: custom, engine: dqs, implementation: 'metric: mean\n\n operator: \"<\"\n\n threshold: 1e300'}\n"), "")
	f.Add([]byte("a: &x [*x]\n"), "")
	f.Add([]byte(strings.Repeat("- ", 200)+"x"), "")
	f.Add([]byte("schema: [{name: t, quality: [{metric: nullValues, mustNotBeBetween: [0, 0.5]}]}]"), "t")
	f.Fuzz(func(t *testing.T, data []byte, table string) {
		start := time.Now()
		im, err := Import(data, table)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Import took %v on %d bytes", d, len(data))
		}
		if err != nil {
			if im != nil {
				t.Error("a result with an error")
			}
			return
		}
		if err := Validate(im.Contract.Rules); err != nil {
			t.Fatalf("imported invalid rules: %v", err)
		}
		for _, s := range im.Skipped {
			if s.Path == "" || s.Reason == "" {
				t.Fatalf("skipped without path or reason: %+v", s)
			}
		}
		c := im.Contract
		if c.Validate() != nil {
			return // a name or table name the service would refuse
		}
		doc, err := Export(c, ExportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		back, err := Import(doc, c.TableName)
		if err != nil {
			t.Fatalf("export does not import: %v\n%s", err, doc)
		}
		if want := grouped(c.Rules); !reflect.DeepEqual(back.Contract.Rules, want) || len(back.Skipped) != 0 {
			t.Fatalf("round trip\n got %+v\nwant %+v\n%s", back.Contract.Rules, want, doc)
		}
	})
}
