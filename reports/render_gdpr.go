package reports

import (
	"fmt"
	"sort"
	"strings"
)

// gdpr lays out the record of processing activities: Article 30(1)'s
// points (a) to (g) in its order, then what DQS found where. What DQS
// cannot know (purposes, data subjects, recipients, transfers, security
// measures, the controller's contacts) is left as a visibly blank field:
// a record that guessed would be worse than one that asks.
func (d *doc) gdpr() {
	datasets := d.in.Datasets
	d.gdprSummary(datasets)

	d.heading("(a) Name and contact details of the controller")
	d.kv("Controller", orDash(d.in.Organization))
	d.pdf.Ln(2)
	d.field("Contact details of the controller")
	d.field("Joint controller (name and contact details)")
	d.field("Representative of the controller")
	d.field("Data protection officer (name and contact details)")

	d.toComplete("(b) Purposes of the processing",
		"DQS sees the data, not why it is processed.", "Purposes of the processing")
	d.gdprCategories(datasets)
	d.toComplete("(d) Categories of recipients", "",
		"Categories of recipients to whom the personal data have been or will be disclosed, including recipients in third countries or international organisations")
	d.toComplete("(e) Transfers to third countries or international organisations", "",
		"Third countries or international organisations the personal data are transferred to, and the documentation of suitable safeguards (Article 49(1), second subparagraph)")
	d.gdprErasure(datasets)
	d.toComplete("(g) Technical and organisational security measures", "",
		"General description of the technical and organisational security measures (Article 32(1))")

	d.gdprStorage(datasets)
	d.gdprInventory(datasets)
	d.gdprStatus(datasets)
	d.gdprRemediation(datasets)
	if d.in.Level == Advanced {
		d.gdprColumns(datasets)
	}
}

func (d *doc) gdprSummary(datasets []Dataset) {
	withPersonal, withSpecial, columns := 0, 0, 0
	for _, ds := range datasets {
		personal, special := 0, 0
		for _, c := range ds.Columns {
			if c.Personal() {
				personal++
			}
			if c.Special() {
				special++
			}
		}
		columns += personal
		if personal > 0 {
			withPersonal++
		}
		if special > 0 {
			withSpecial++
		}
	}
	d.para(fmt.Sprintf("%d dataset(s) in scope; %d hold personal data (%d column(s) in all), %d of them a special category.",
		len(datasets), withPersonal, columns, withSpecial))
	d.note(`DQS fills in what it detects in the data. Fields marked "` + notCompleted +
		`" hold what only the controller knows; DQS leaves them blank rather than guess.`)
}

// toComplete is a section of Article 30(1) DQS cannot fill: a heading,
// an optional note and the blank field.
func (d *doc) toComplete(heading, why, label string) {
	d.heading(heading)
	if why != "" {
		d.note(why)
	}
	d.field(label)
}

func (d *doc) gdprCategories(datasets []Dataset) {
	d.heading("(c) Categories of data subjects and categories of personal data")
	d.field("Categories of data subjects")
	cats := personalCategories(datasets)
	var personal, special [][]string
	for _, c := range cats {
		row := []string{c.label, count(int64(c.columns)), strings.Join(c.datasets, ", ")}
		if c.special {
			special = append(special, row)
		} else {
			personal = append(personal, row)
		}
	}
	cols := []col{{"Classification", 0.25, false}, {"Columns", 0.12, true}, {"Datasets", 0.63, false}}
	d.subheading("Categories of personal data")
	d.note("Detected from the classification of the datasets' columns.")
	// The dataset lists may be long; a category row may use most of a
	// page before it is cut.
	d.table(table{cols: cols, rows: personal, lines: 40, empty: "No column was classified as personal data."})
	d.subheading("Special categories of personal data (Article 9)")
	d.table(table{cols: cols, rows: special, lines: 40, empty: "No column was classified as a special category of personal data."})
}

// personalCategory is one classification label of personal columns.
type personalCategory struct {
	label    string
	special  bool
	columns  int
	datasets []string
}

// personalCategories lists the distinct labels of personal columns (a
// label special in one dataset and not in another counts as two), each
// with the datasets it occurs in, in Input order, sorted by label.
func personalCategories(datasets []Dataset) []personalCategory {
	type key struct {
		label   string
		special bool
	}
	var out []personalCategory
	at := map[key]int{} // lookup only: the order is out's
	last := map[key]int{}
	for i, ds := range datasets {
		for _, c := range ds.Columns {
			if !c.Personal() {
				continue
			}
			k := key{strings.TrimSpace(c.Classification), c.Special()}
			if k.label == "" {
				k.label = "unlabelled"
			}
			j, ok := at[k]
			if !ok {
				j = len(out)
				at[k] = j
				out = append(out, personalCategory{label: k.label, special: k.special})
			}
			out[j].columns++
			if n, seen := last[k]; !seen || n != i {
				last[k] = i
				out[j].datasets = append(out[j].datasets, ds.Name)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].label < out[j].label })
	return out
}

func (d *doc) gdprErasure(datasets []Dataset) {
	d.heading("(f) Time limits for erasure")
	d.kv("Retention mode", orDash(d.in.Retention.Mode))
	days := "-"
	if d.in.Retention.Days > 0 {
		days = fmt.Sprintf("%d days", d.in.Retention.Days)
	}
	d.kv("Retention period", days)
	d.pdf.Ln(2)
	rows := make([][]string, len(datasets))
	for i, ds := range datasets {
		rows[i] = []string{ds.Name, orDash(string(ds.Kind)), erasure(ds)}
	}
	d.table(table{cols: []col{{"Dataset", 0.5, false}, {"Kind", 0.12, false}, {"Erasure", 0.38, false}},
		rows: rows, empty: "No dataset in scope."})
}

// erasure says when a dataset's raw data goes: DQS erases what it holds
// under the retention setting; a table stays in its source, whose
// retention is the source's.
func erasure(ds Dataset) string {
	switch {
	case ds.ErasedAt != nil:
		return "erased on " + day(*ds.ErasedAt)
	case ds.ErasureDueAt != nil:
		return "erasure due " + day(*ds.ErasureDueAt)
	case ds.Kind == KindTable:
		return "kept in its source"
	}
	return "no erasure date"
}

func (d *doc) gdprStorage(datasets []Dataset) {
	d.heading("Where the data is stored")
	rows := make([][]string, len(datasets))
	for i, ds := range datasets {
		rows[i] = []string{ds.Name, orDash(string(ds.Kind)), orDash(ds.Location)}
	}
	d.table(table{cols: []col{{"Dataset", 0.35, false}, {"Kind", 0.1, false}, {"Location", 0.55, false}},
		rows: rows, empty: "No dataset in scope."})
}

func (d *doc) gdprInventory(datasets []Dataset) {
	d.heading("Inventory of sensitive columns")
	var rows [][]string
	for _, ds := range datasets {
		for _, c := range ds.Columns {
			if c.Personal() {
				rows = append(rows, []string{ds.Name, c.Name, orDash(c.Classification), c.Category, fmt.Sprintf("%.2f", c.Confidence)})
			}
		}
	}
	d.table(table{cols: []col{{"Dataset", 0.25, false}, {"Column", 0.25, false}, {"Classification", 0.2, false},
		{"Category", 0.17, false}, {"Confidence", 0.13, true}},
		rows: rows, empty: "No column was classified as personal data."})
}

func (d *doc) gdprStatus(datasets []Dataset) {
	d.heading("Compliance status per dataset")
	rows := make([][]string, len(datasets))
	for i, ds := range datasets {
		status, why := Compliance(ds)
		rows[i] = []string{ds.Name, string(status), why}
	}
	d.table(table{cols: []col{{"Dataset", 0.3, false}, {"Status", 0.22, false}, {"Reason", 0.48, false}},
		rows: rows, empty: "No dataset in scope."})
}

// gdprRemediation lists the datasets whose status calls for action, then
// the privacy steps of Recommend (the quality steps belong to the other
// reports).
func (d *doc) gdprRemediation(datasets []Dataset) {
	d.heading("Remediation steps")
	var rows [][]string
	for _, ds := range datasets {
		if status, why := Compliance(ds); status == StatusActionRequired {
			rows = append(rows, []string{ds.Name, "-", "Action required on the dataset", why})
		}
	}
	for _, r := range Recommend(datasets, true) {
		if strings.HasPrefix(r.Action, "Pseudonymise") {
			rows = append(rows, []string{r.Dataset, r.Column, r.Action, r.Why})
		}
	}
	d.table(table{cols: []col{{"Dataset", 0.2, false}, {"Column", 0.16, false}, {"Step", 0.34, false}, {"Why", 0.3, false}},
		rows: rows, empty: "No remediation step: no personal data was detected."})
}

func (d *doc) gdprColumns(datasets []Dataset) {
	d.pdf.AddPage()
	d.heading("Columns per dataset")
	if len(datasets) == 0 {
		d.note("No dataset in scope.")
	}
	for _, ds := range datasets {
		d.subheading(ds.Name)
		d.columnTable(ds.Columns, fieldName, fieldType, fieldClass, fieldCategory, fieldConfidence, fieldNullRate)
	}
}
