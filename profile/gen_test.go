package profile

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/dqs/dqs/columnar"
)

// benchColumns is a 14-column mixed table: ids, codes, names, emails,
// numbers, dates, datetimes, booleans, categories, phones, zips and text.
var benchColumns = []string{
	"id", "uuid", "name", "email", "age", "salary", "signup_date", "last_login",
	"active", "country", "city", "phone", "zip", "notes",
}

type table struct {
	rows  [][]string
	nulls [][]bool
	bytes int64
}

func genTable(n int, seed uint64) table {
	r := rand.New(rand.NewPCG(seed, 42))
	first := []string{"Alice", "Bob", "Chloé", "David", "Emma", "Farid", "Grace", "Hugo", "Inès", "Jean", "Karim", "Léa", "Marc", "Nina", "Oscar", "Paul"}
	last := []string{"Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand", "Leroy", "Moreau", "O'Neil", "Smith-Jones"}
	countries := []string{"FR", "DE", "ES", "IT", "US", "GB", "BE", "NL"}
	cities := []string{"Paris", "Lyon", "Berlin", "Madrid", "Rome", "London", "Brussels", "Amsterdam", "New York"}
	words := []string{"late", "payment", "customer", "called", "about", "refund", "order", "shipped", "missing", "item", "VIP", "follow-up", "ok"}
	t := table{rows: make([][]string, n), nulls: make([][]bool, n)}
	for i := range n {
		row := make([]string, len(benchColumns))
		null := make([]bool, len(benchColumns))
		fn, ln := first[r.IntN(len(first))], last[r.IntN(len(last))]
		row[0] = fmt.Sprint(i + 1)
		row[1] = fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
		row[2] = fn + " " + ln
		row[3] = strings.ToLower(strings.ReplaceAll(fn+"."+ln, "'", "")) + fmt.Sprintf("%d@example.com", r.IntN(100))
		if r.IntN(50) == 0 {
			row[4] = ""
		} else {
			row[4] = fmt.Sprint(18 + r.IntN(70))
		}
		if r.IntN(20) == 0 {
			null[5] = true
		} else if r.IntN(500) == 0 {
			row[5] = fmt.Sprintf("%.2f", 1e7+r.Float64()*1e6) // outlier
		} else {
			row[5] = fmt.Sprintf("%.2f", 20000+r.NormFloat64()*8000)
		}
		y, m, d := 2015+r.IntN(10), 1+r.IntN(12), 1+r.IntN(28)
		if r.IntN(100) < 3 {
			row[6] = fmt.Sprintf("%02d/%02d/%04d", d, m, y)
		} else {
			row[6] = fmt.Sprintf("%04d-%02d-%02d", y, m, d)
		}
		row[7] = fmt.Sprintf("2024-%02d-%02d %02d:%02d:%02d", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60))
		row[8] = []string{"true", "false"}[r.IntN(2)]
		row[9] = countries[r.IntN(len(countries))]
		c := cities[r.IntN(len(cities))]
		if r.IntN(40) == 0 {
			c = strings.ToUpper(c)
		}
		row[10] = c
		row[11] = fmt.Sprintf("+33 6 %02d %02d %02d %02d", r.IntN(100), r.IntN(100), r.IntN(100), r.IntN(100))
		row[12] = fmt.Sprintf("%05d", r.IntN(100000))
		if r.IntN(10) < 4 {
			null[13] = true
		} else {
			k := 1 + r.IntN(8)
			ws := make([]string, k)
			for j := range ws {
				ws[j] = words[r.IntN(len(words))]
			}
			row[13] = strings.Join(ws, " ")
		}
		if i > 0 && r.IntN(100) == 0 { // ~1% exact duplicates of an earlier row
			j := r.IntN(i)
			copy(row, t.rows[j])
			copy(null, t.nulls[j])
		}
		for j, v := range row {
			if !null[j] {
				t.bytes += int64(len(v))
			}
		}
		t.rows[i], t.nulls[i] = row, null
	}
	return t
}

func profileTable(t table, lo, hi int, opt Options) *Profiler {
	p := New(benchColumns, opt)
	for i := lo; i < hi; i++ {
		p.Add(t.rows[i], t.nulls[i])
	}
	return p
}

// batches cuts the table into column-major batches of at most n rows, as a
// reader hands them to the engine.
func (tb table) batches(n int) []*columnar.Batch {
	var out []*columnar.Batch
	for lo := 0; lo < len(tb.rows); lo += n {
		b := columnar.NewBatch(len(benchColumns))
		for r := lo; r < min(lo+n, len(tb.rows)); r++ {
			for i := range benchColumns {
				if i >= len(tb.rows[r]) || tb.nulls[r][i] {
					b.Cols[i].AppendNull()
				} else {
					b.Cols[i].AppendString(tb.rows[r][i])
				}
			}
			b.Rows++
		}
		out = append(out, b)
	}
	return out
}
