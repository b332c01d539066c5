package api_test

// Previewing and applying correction pipelines over the running service
// (Temporal dev server, SQLite, local blob storage): a messy upload
// corrected into a new file whose rows equal an oracle's, the original
// untouched, the copy analysed, steps applied, lineage linked; steps that
// fail on a row or run away; every format; bad requests.

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// messyCSV is a CRM-style export: e-mails typed in any case with spaces
// around, cities with stray blanks, and rows exported twice.
func messyCSV(rows int) string {
	var b strings.Builder
	b.WriteString("id,email,city,amount\n")
	cities := []string{"Stockholm", " Oslo", "Helsinki ", "  Copenhagen  "}
	for i := 0; i < rows; i++ {
		email := fmt.Sprintf("user%d@example.com", i%(rows-5))
		switch i % 3 {
		case 1:
			email = " " + strings.ToUpper(email)
		case 2:
			email = strings.Title(email) + "  "
		}
		id := i % (rows - 5) // the last five rows repeat earlier ids
		fmt.Fprintf(&b, "%d,%s,%s,%d.50\n", id, email, cities[id%len(cities)], id*10)
	}
	return b.String()
}

// messyOracle is what trimming the city, normalising the e-mail and
// removing exact duplicate rows (first kept) must leave, computed the
// obvious way.
func messyOracle(t *testing.T, in string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(in)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := [][]string{recs[0]}
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		r = []string{r[0], strings.ToLower(strings.TrimSpace(r[1])), strings.TrimSpace(r[2]), r[3]}
		k := strings.Join(r, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// uploadAnalysed uploads files in one job and returns the id of the
// named one once the job is analysed.
func uploadAnalysed(t *testing.T, env *servicetest.Env, token, name, content string) float64 {
	t.Helper()
	job := upload(t, env, "/api/v1/public/upload", token, map[string]string{name: content}).Data()
	j := waitJob(t, env, token, fmt.Sprintf("/api/v1/jobs/%v", job["job_id"]))
	if j["status"] != "completed" {
		t.Fatalf("job = %v", j)
	}
	return j["file_id"].(float64)
}

// waitFile polls a file until it leaves processing.
func waitFile(t *testing.T, env *servicetest.Env, token string, id any) map[string]any {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		f := env.Must(200, "GET", fmt.Sprintf("/api/v1/files/%v", id), token, nil).Data()
		if f["status"] == "completed" || f["status"] == "failed" {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("file still %v after 90s: %v", f["status"], f)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// download fetches a file's raw bytes through its signed link.
func download(t *testing.T, env *servicetest.Env, token string, id any) []byte {
	t.Helper()
	dl := env.Do("GET", fmt.Sprintf("/api/v1/files/%v/download", id), token, nil)
	if dl.Status != http.StatusTemporaryRedirect {
		t.Fatalf("download of %v = %d %s", id, dl.Status, dl.Raw)
	}
	resp, err := http.Get(dl.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("signed download = %d %v", resp.StatusCode, err)
	}
	return body
}

func stepsOf(p map[string]any) []map[string]any {
	var out []map[string]any
	for _, s := range p["steps"].([]any) {
		out = append(out, s.(map[string]any))
	}
	return out
}

func TestApplyPipelineWritesACorrectedCopy(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("apply"))
	content := messyCSV(40)
	fileID := uploadAnalysed(t, env, user.Access, "crm.csv", content)
	original := env.Must(200, "GET", fmt.Sprintf("/api/v1/files/%v", fileID), user.Access, nil).Data()

	p := env.Must(201, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": "clean crm", "file_id": fileID, "steps": []any{
		map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "email", "strategy": "email_normalize"}},
		map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "city", "strategy": "trim"}},
		map[string]any{"correction_type": "dedupe", "config": map[string]any{"strategy": "exact"}},
	}}).Data()
	pid := p["id"]
	want := messyOracle(t, content)

	// The preview shows the first rows before and after, and writes nothing.
	pv := env.Must(200, "POST", fmt.Sprintf("/api/v1/corrections/%v/preview", pid), user.Access, map[string]any{"file_id": fileID, "rows": 10}).Data()
	rows := pv["rows"].([]any)
	if len(rows) != 10 || pv["rows_read"] != float64(10) || len(pv["steps"].([]any)) != 3 {
		t.Fatalf("preview = %v", pv)
	}
	for i, r := range rows {
		after := r.(map[string]any)["after"].(map[string]any)
		if after["email"] != want[i+1][1] || after["city"] != want[i+1][2] {
			t.Errorf("preview row %d after = %v, want %v", i+1, after, want[i+1])
		}
	}

	// Apply: a new file, processing, from this pipeline's version.
	ap := env.Must(202, "POST", fmt.Sprintf("/api/v1/corrections/%v/apply", pid), user.Access, map[string]any{"file_id": fileID}).Data()
	cp := ap["file"].(map[string]any)
	if cp["parent_file_id"] != fileID || cp["pipeline_id"] != pid || cp["pipeline_version"] != p["version"] || cp["status"] != "processing" ||
		cp["raw_file_deleted"] != false || cp["file_name"] != "crm.csv" {
		t.Fatalf("copy = %v", cp)
	}
	done := waitFile(t, env, user.Access, cp["id"])
	if done["status"] != "completed" || done["quality_score"] == nil || done["row_count"] != float64(len(want)-1) {
		t.Fatalf("copy analysed = %v", done)
	}
	if done["quality_score"].(float64) < original["quality_score"].(float64) {
		t.Errorf("copy score %v below the original's %v", done["quality_score"], original["quality_score"])
	}
	got, err := csv.NewReader(bytes.NewReader(download(t, env, user.Access, cp["id"]))).ReadAll()
	if err != nil || !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("corrected copy (%v) =\n%v\nwant\n%v", err, got, want)
	}
	if string(download(t, env, user.Access, fileID)) != content {
		t.Fatal("the original changed")
	}

	// The steps are applied in a new version; the lineage graph holds
	// original → pipeline → copy.
	after := env.Must(200, "GET", fmt.Sprintf("/api/v1/corrections/%v", pid), user.Access, nil).Data()
	for _, st := range stepsOf(after) {
		if st["status"] != "applied" {
			t.Errorf("step after apply = %v", st)
		}
	}
	if after["version"] != p["version"].(float64)+1 {
		t.Errorf("version after apply = %v", after["version"])
	}
	graph := env.Must(200, "GET", "/api/v1/lineage", user.Access, nil).Data()
	ids := map[string]string{}
	for _, n := range graph["nodes"].([]any) {
		n := n.(map[string]any)
		ids[fmt.Sprint(n["type"], ":", n["ref_id"])] = n["id"].(string)
	}
	from, pipe, to := ids[fmt.Sprintf("file:%v", fileID)], ids[fmt.Sprintf("pipeline:%v/%v", pid, fileID)], ids[fmt.Sprintf("file:%v", cp["id"])]
	edges := map[string]bool{}
	for _, e := range graph["edges"].([]any) {
		e := e.(map[string]any)
		edges[fmt.Sprint(e["source_node_id"], ">", e["target_node_id"])] = true
	}
	if pipe == "" || !edges[from+">"+pipe] || !edges[pipe+">"+to] {
		t.Errorf("lineage = %v, want %s > %s > %s", graph, from, pipe, to)
	}

	// Every apply makes another file; applying to the copy chains without
	// a cycle.
	again := env.Must(202, "POST", fmt.Sprintf("/api/v1/corrections/%v/apply", pid), user.Access, map[string]any{"file_id": cp["id"]}).Data()["file"].(map[string]any)
	if again["id"] == cp["id"] || waitFile(t, env, user.Access, again["id"])["status"] != "completed" {
		t.Fatalf("second apply = %v", again)
	}

	// A revert brings the version back with its steps active.
	rv := env.Must(200, "POST", fmt.Sprintf("/api/v1/corrections/%v/revert", pid), user.Access, map[string]any{"to_version": 1}).Data()
	if st := stepsOf(rv); st[0]["status"] != "active" || rv["version"].(float64) <= after["version"].(float64) {
		t.Fatalf("revert = %v", rv)
	}
}

func TestApplyFailuresAndBadRequests(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("applyfail"))
	other := env.Register(servicetest.Unique("applyother"))
	content := "id,amount,city\n1,10,Oslo\n2,n/a,Bergen\n3,30,Oslo\n"
	fileID := uploadAnalysed(t, env, user.Access, "ledger.csv", content)
	otherFile := uploadAnalysed(t, env, other.Access, "ledger.csv", content)
	narrow := uploadAnalysed(t, env, user.Access, "narrow.csv", "id,name\n1,a\n2,b\n")

	create := func(steps ...any) map[string]any {
		return env.Must(201, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": "p", "file_id": fileID, "steps": steps}).Data()
	}
	custom := func(expr string) any {
		return map[string]any{"correction_type": "custom", "config": map[string]any{"column": "amount", "params": map[string]any{"expression": expr}}}
	}

	// A step that fails on a row, or runs away, fails the copy and the
	// step with the reason; nothing is stored for the copy.
	for _, c := range []struct{ expr, want string }{
		{`string(int(row.amount) * 2)`, "row 2"},
		{`string(reduce(1..100000000, #acc + #, 0))`, "step"},
		{`repeat(row.city, 1000000000)`, "step"},
	} {
		p := create(custom(c.expr))
		// The preview fails the same way, as a 400.
		r := env.Do("POST", fmt.Sprintf("/api/v1/corrections/%v/preview", p["id"]), user.Access, map[string]any{"file_id": fileID})
		if r.Status != 400 || !strings.Contains(r.ErrorMessage(), "step") {
			t.Errorf("%s: preview = %d %s", c.expr, r.Status, r.Raw)
		}
		cp := env.Must(202, "POST", fmt.Sprintf("/api/v1/corrections/%v/apply", p["id"]), user.Access, map[string]any{"file_id": fileID}).Data()["file"].(map[string]any)
		done := waitFile(t, env, user.Access, cp["id"])
		if done["status"] != "failed" || !strings.Contains(fmt.Sprint(done["error"]), c.want) {
			t.Errorf("%s: copy = %v", c.expr, done)
		}
		if r := env.Do("GET", fmt.Sprintf("/api/v1/files/%v/download", cp["id"]), user.Access, nil); r.Status != 409 {
			t.Errorf("%s: download of a failed copy = %d %s", c.expr, r.Status, r.Raw)
		}
		st := stepsOf(env.Must(200, "GET", fmt.Sprintf("/api/v1/corrections/%v", p["id"]), user.Access, nil).Data())[0]
		if st["status"] != "failed" || st["error"] == nil {
			t.Errorf("%s: step = %v", c.expr, st)
		}
	}

	trim := map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "city", "strategy": "trim"}}
	p := create(trim)
	apply := fmt.Sprintf("/api/v1/corrections/%v/apply", p["id"])
	for _, c := range []struct {
		body   any
		status int
		want   string
	}{
		{map[string]any{}, 400, "file_id"},
		{map[string]any{"file_id": "x"}, 400, ""},
		{map[string]any{"file_id": 99999999}, 404, ""},
		{map[string]any{"file_id": otherFile}, 404, ""},
		{map[string]any{"file_id": narrow}, 400, "city"},
	} {
		if r := env.Do("POST", apply, user.Access, c.body); r.Status != c.status || !strings.Contains(r.ErrorMessage(), c.want) {
			t.Errorf("apply %v = %d %s, want %d naming %q", c.body, r.Status, r.Raw, c.status, c.want)
		}
		if r := env.Do("POST", strings.Replace(apply, "/apply", "/preview", 1), user.Access, c.body); r.Status != c.status {
			t.Errorf("preview %v = %d %s, want %d", c.body, r.Status, r.Raw, c.status)
		}
	}
	// Another organisation's pipeline is missing.
	if r := env.Do("POST", apply, other.Access, map[string]any{"file_id": otherFile}); r.Status != 404 {
		t.Errorf("foreign pipeline = %d", r.Status)
	}
	// Nothing to apply, or archived: 409.
	empty := create()
	if r := env.Do("POST", fmt.Sprintf("/api/v1/corrections/%v/apply", empty["id"]), user.Access, map[string]any{"file_id": fileID}); r.Status != 409 {
		t.Errorf("empty pipeline = %d %s", r.Status, r.Raw)
	}
	env.Must(200, "PATCH", fmt.Sprintf("/api/v1/corrections/%v", p["id"]), user.Access, map[string]any{"status": "archived"})
	if r := env.Do("POST", apply, user.Access, map[string]any{"file_id": fileID}); r.Status != 409 {
		t.Errorf("archived pipeline = %d %s", r.Status, r.Raw)
	}
	// None of it wrote a file beyond the three failed copies.
	files := env.Must(200, "GET", "/api/v1/files", user.Access, nil)
	if files.Body["meta"].(map[string]any)["total"] != float64(5) {
		t.Errorf("files = %s", files.Raw)
	}
}

// writeRows renders rows in a format through the engine's own writers.
func writeRows(t *testing.T, format records.Format, cols []string, rows [][]string) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := corrections.NewWriter(format, &buf, corrections.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(cols); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(&records.Record{Values: r, Null: make([]bool, len(r))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestApplyEveryFormat(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("formats"))
	cols := []string{"id", "city"}
	rows := [][]string{{"1", " Oslo"}, {"2", "Bergen "}, {"3", "Oslo"}, {"4", "  Tromsø  "}}
	for _, c := range []struct {
		name   string
		format records.Format
	}{{"towns.jsonl", readers.FormatJSONL}, {"towns.json", readers.FormatJSON}, {"towns.parquet", readers.FormatParquet}, {"towns.csv", readers.FormatCSV}} {
		t.Run(c.name, func(t *testing.T) {
			fileID := uploadAnalysed(t, env, user.Access, c.name, writeRows(t, c.format, cols, rows))
			p := env.Must(201, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": c.name, "file_id": fileID, "steps": []any{
				map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "city", "strategy": "trim"}}}}).Data()
			cp := env.Must(202, "POST", fmt.Sprintf("/api/v1/corrections/%v/apply", p["id"]), user.Access, map[string]any{"file_id": fileID}).Data()["file"].(map[string]any)
			if done := waitFile(t, env, user.Access, cp["id"]); done["status"] != "completed" || done["format"] != string(c.format) {
				t.Fatalf("copy = %v", done)
			}
			want := writeRows(t, c.format, cols, [][]string{{"1", "Oslo"}, {"2", "Bergen"}, {"3", "Oslo"}, {"4", "Tromsø"}})
			if got := download(t, env, user.Access, cp["id"]); string(got) != want {
				t.Errorf("copy =\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// A JSON Lines file whose key first appears past the first rows the
// reader looks at: the analysis lists the column, and a step on it
// previews and applies.
func TestApplyOnAColumnThatAppearsLate(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("late"))
	var b, want strings.Builder
	for i := range 6000 {
		if i < 5000 {
			fmt.Fprintf(&b, "{\"id\":%d}\n", i)
			fmt.Fprintf(&want, "{\"id\":\"%d\",\"late\":null}\n", i)
			continue
		}
		fmt.Fprintf(&b, "{\"id\":%d,\"late\":\"  v%d \"}\n", i, i)
		fmt.Fprintf(&want, "{\"id\":\"%d\",\"late\":\"v%d\"}\n", i, i)
	}
	fileID := uploadAnalysed(t, env, user.Access, "late.jsonl", b.String())
	p := env.Must(201, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": "late", "file_id": fileID, "steps": []any{
		map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "late", "strategy": "trim"}}}}).Data()
	env.Must(200, "POST", fmt.Sprintf("/api/v1/corrections/%v/preview", p["id"]), user.Access, map[string]any{"file_id": fileID})
	cp := env.Must(202, "POST", fmt.Sprintf("/api/v1/corrections/%v/apply", p["id"]), user.Access, map[string]any{"file_id": fileID}).Data()["file"].(map[string]any)
	if done := waitFile(t, env, user.Access, cp["id"]); done["status"] != "completed" {
		t.Fatalf("copy = %v", done)
	}
	if got := string(download(t, env, user.Access, cp["id"])); got != want.String() {
		t.Errorf("copy starts %q, want %q", got[:min(200, len(got))], want.String()[:200])
	}
}
