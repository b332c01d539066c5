package api_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models/modelstest"
)

// Files of the CSV dialect tests.
const (
	// titledSemicolons has a title line above its header.
	titledSemicolons = "Export of 2026-11-26\nid;city\n1;Paris\n2;Rome\n3;Oslo\n"
	// passwordsBelowNumbers has its header on line 3: sniffed, the
	// password column is neither named nor found; read with header=3 it is.
	passwordsBelowNumbers = "1,2\n3,4\nuser,password\nanna,Summer2024!\nmikko,hunter2xx\nola,Pa55word#1\nlars,qwerty123\n"
)

// fileOf returns the job's file named name, as the job shows it.
func fileOf(t *testing.T, job map[string]any, name string) map[string]any {
	t.Helper()
	for _, f := range job["files"].([]any) {
		if f := f.(map[string]any); f["file_name"] == name {
			return f
		}
	}
	t.Fatalf("no file %s in %v", name, job["files"])
	return nil
}

// analysedFile is GET /files/{id} of the job's file named name.
func analysedFile(t *testing.T, env *servicetest.Env, token string, job map[string]any, name string) map[string]any {
	t.Helper()
	id := int64(fileOf(t, job, name)["file_id"].(float64))
	return env.Must(200, "GET", fmt.Sprintf("/api/v1/files/%d", id), token, nil).Data()
}

func profileColumns(t *testing.T, file map[string]any) []string {
	t.Helper()
	prof, ok := file["profile"].(map[string]any)
	if !ok {
		t.Fatalf("file without a profile: %v", file)
	}
	var names []string
	for _, c := range prof["columns"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	return names
}

// total is meta.total of a list.
func total(t *testing.T, env *servicetest.Env, token, path string) float64 {
	t.Helper()
	return env.Must(200, "GET", path, token, nil).Body["meta"].(map[string]any)["total"].(float64)
}

// TestCSVDialectPerUpload: the query's delimiter, quote, header and
// encoding are how the upload's files are read, stored with each file and
// shown with it; a job holds files of different dialects.
func TestCSVDialectPerUpload(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			env := servicetest.Start(t, servicetest.Options{Dialect: d})
			admin := env.Register(servicetest.Unique("csvd"))
			scan, _ := env.APIKey(admin, "scan")

			// One job, two files, each with its own dialect.
			job := env.Must(201, "POST", "/api/v1/jobs", admin.Access, map[string]any{"filenames": []string{"plain.csv", "sniffed.csv"}}).Data()
			path := "/api/v1/jobs/" + job["job_id"].(string)
			r := upload(t, env, path+"/files?delimiter=%3B&header=none", admin.Access, map[string]string{"plain.csv": "id;city\n1;Paris\n2;Rome\n"})
			if r.Status != 201 {
				t.Fatalf("upload with a dialect = %d %s", r.Status, r.Raw)
			}
			if got := fileOf(t, r.Data(), "plain.csv")["csv_dialect"]; !reflect.DeepEqual(got, map[string]any{"delimiter": ";", "header": "none"}) {
				t.Errorf("csv_dialect after upload = %v", got)
			}
			upload(t, env, path+"/files", admin.Access, map[string]string{"sniffed.csv": "id;city\n1;Paris\n2;Rome\n"})
			env.Must(202, "POST", path+"/start", admin.Access, nil)
			done := waitJob(t, env, admin.Access, path)
			if done["status"] != "completed" {
				t.Fatalf("job = %v", done)
			}
			if _, shown := fileOf(t, done, "sniffed.csv")["csv_dialect"]; shown {
				t.Errorf("a sniffed file shows csv_dialect: %v", fileOf(t, done, "sniffed.csv"))
			}
			given := analysedFile(t, env, admin.Access, done, "plain.csv")
			if !reflect.DeepEqual(given["csv_dialect"], map[string]any{"delimiter": ";", "header": "none"}) {
				t.Errorf("GET /files/{id} csv_dialect = %v", given["csv_dialect"])
			}
			if got := profileColumns(t, given); !reflect.DeepEqual(got, []string{"col_1", "col_2"}) || given["row_count"] != float64(3) {
				t.Errorf("read with header=none: columns %q, %v rows", got, given["row_count"])
			}
			wantCSV := map[string]any{"delimiter": ";", "quote": `"`, "header_line": nil, "encoding": "utf-8"}
			if got := given["profile"].(map[string]any)["csv"]; !reflect.DeepEqual(got, wantCSV) {
				t.Errorf("profile csv = %v, want %v", got, wantCSV)
			}
			sniffed := analysedFile(t, env, admin.Access, done, "sniffed.csv")
			if _, shown := sniffed["csv_dialect"]; shown || !reflect.DeepEqual(profileColumns(t, sniffed), []string{"id", "city"}) {
				t.Errorf("sniffed file = %v", sniffed)
			}
			if got := sniffed["profile"].(map[string]any)["csv"].(map[string]any)["header_line"]; got != float64(1) {
				t.Errorf("sniffed header_line = %v", got)
			}
			var listed map[string]any
			for _, f := range env.Must(200, "GET", "/api/v1/files", admin.Access, nil).List() {
				if f["file_name"] == "plain.csv" {
					listed = f
				}
			}
			if listed == nil || !reflect.DeepEqual(listed["csv_dialect"], map[string]any{"delimiter": ";", "header": "none"}) {
				t.Errorf("GET /files shows %v", listed)
			}

			// The public upload, as the README shows it; its stored profile
			// says what was read.
			pub := upload(t, env, "/api/v1/public/upload?delimiter=semicolon&header=2", scan, map[string]string{"regions.csv": titledSemicolons})
			if pub.Status != 202 {
				t.Fatalf("public upload = %d %s", pub.Status, pub.Raw)
			}
			done = waitJob(t, env, scan, "/api/v1/public/jobs/"+pub.Data()["job_id"].(string))
			f := analysedFile(t, env, scan, done, "regions.csv")
			wantCSV = map[string]any{"delimiter": ";", "quote": `"`, "header_line": float64(2), "encoding": "utf-8"}
			if !reflect.DeepEqual(f["csv_dialect"], map[string]any{"delimiter": "semicolon", "header": "2"}) ||
				!reflect.DeepEqual(f["profile"].(map[string]any)["csv"], wantCSV) || !reflect.DeepEqual(profileColumns(t, f), []string{"id", "city"}) {
				t.Errorf("public upload's file = %v", f)
			}
			// A wrapped JSON export: the profile says where its records were.
			pub = upload(t, env, "/api/v1/public/upload", scan, map[string]string{"export.json": `{"meta": {"page": 1}, "results": [{"id": 1}, {"id": 2}]}`})
			done = waitJob(t, env, scan, "/api/v1/public/jobs/"+pub.Data()["job_id"].(string))
			prof := analysedFile(t, env, scan, done, "export.json")["profile"].(map[string]any)
			if _, hasCSV := prof["csv"]; prof["records_path"] != "results" || prof["row_count"] != float64(2) || hasCSV {
				t.Errorf("wrapped JSON profile = %v", prof)
			}

			// Another organisation sees none of it.
			other := env.Register(servicetest.Unique("csvd-other"))
			env.Must(404, "GET", fmt.Sprintf("/api/v1/files/%v", given["id"]), other.Access, nil)
		})
	}
}

// TestCSVDialectRefused: a word the parser does not take is a 400 with its
// sentence on every endpoint that takes a dialect, and nothing is stored;
// the prescan that guards uploads reads with the given dialect.
func TestCSVDialectRefused(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("csvbad"))
	scan, _ := env.APIKey(admin, "scan")
	job := env.Must(201, "POST", "/api/v1/jobs", admin.Access, map[string]any{"filenames": []string{"a.csv"}}).Data()
	jobPath := "/api/v1/jobs/" + job["job_id"].(string)
	jobs, files := total(t, env, admin.Access, "/api/v1/jobs"), total(t, env, admin.Access, "/api/v1/files")
	nothingStored := func(label string) {
		t.Helper()
		if got := env.Must(200, "GET", jobPath, admin.Access, nil).Data()["files"].([]any); len(got) != 0 {
			t.Errorf("%s: the job holds %v", label, got)
		}
		if len(storedBlobs(t, env, admin.OrgID, job["job_id"].(string))) != 0 {
			t.Errorf("%s: blobs stored", label)
		}
		if j, f := total(t, env, admin.Access, "/api/v1/jobs"), total(t, env, admin.Access, "/api/v1/files"); j != jobs || f != files {
			t.Errorf("%s: %v jobs and %v files, were %v and %v", label, j, f, jobs, files)
		}
	}
	endpoints := []struct{ path, token string }{
		{jobPath + "/files", admin.Access},
		{"/api/v1/public/upload", scan},
		{"/api/v1/files/prescan", admin.Access},
	}
	for _, tc := range []struct{ query, message string }{
		{"delimiter=ab", `the delimiter "ab" is not one character`},
		{"delimiter=%C3%A9", `the delimiter "é" is not one character`},
		{"quote=xy", `the quote "xy" is not one character`},
		{"header=0", `the header "0" is not understood`},
		{"header=first", `the header "first" is not understood`},
		{"encoding=ebcdic", `the encoding "ebcdic" is not supported`},
		{"delimiter=%27&quote=%27", `the CSV delimiter and quote are both '\''`},
		// Go drops a pair with a raw ';': refused rather than sniffed.
		{"delimiter=;&header=2", `raw ";"`},
	} {
		for _, e := range endpoints {
			label := e.path + "?" + tc.query
			r := upload(t, env, label, e.token, map[string]string{"a.csv": "id,city\n1,Paris\n"})
			if r.Status != 400 || r.ErrorCode() != "bad_request" || !strings.Contains(r.ErrorMessage(), tc.message) {
				t.Errorf("%s = %d %s, want 400 with %q", label, r.Status, r.Raw, tc.message)
			}
			nothingStored(label)
		}
	}

	// The password guard reads the file as it will be analysed: with its
	// header on line 3, the passwords are found and nothing is stored.
	for _, e := range endpoints {
		label := e.path + "?header=3"
		r := upload(t, env, label, e.token, map[string]string{"a.csv": passwordsBelowNumbers})
		if r.Status != 400 || r.ErrorCode() != "raw_password_detected" || !strings.Contains(r.ErrorMessage(), `"password"`) {
			t.Errorf("%s = %d %s, want 400 raw_password_detected", label, r.Status, r.Raw)
		}
		nothingStored(label)
	}
	// Sniffed, the same file passes: the dialect is what found them.
	r := upload(t, env, "/api/v1/files/prescan", admin.Access, map[string]string{"a.csv": passwordsBelowNumbers})
	if r.Status != 200 || r.Data()["password_columns"] != nil {
		t.Errorf("sniffed prescan = %d %s", r.Status, r.Raw)
	}

	// The prescan says which dialect it read, and where wrapped records were.
	r = upload(t, env, "/api/v1/files/prescan?delimiter=tab&quote=none&encoding=latin-1", admin.Access, map[string]string{"a.csv": "id\tcity\n1\tParis\n"})
	want := map[string]any{"delimiter": "\t", "quote": nil, "header_line": float64(1), "encoding": "windows-1252"}
	if r.Status != 200 || !reflect.DeepEqual(r.Data()["csv"], want) {
		t.Errorf("prescan csv = %d %s, want %v", r.Status, r.Raw, want)
	}
	r = upload(t, env, "/api/v1/files/prescan", admin.Access, map[string]string{"a.json": `{"response": {"items": [{"id": 1}]}}`})
	if r.Status != 200 || r.Data()["records_path"] != "response.items" {
		t.Errorf("prescan of wrapped JSON = %d %s", r.Status, r.Raw)
	}
	waitSpoolEmpty(t, env)
}
