package api_test

// Reports over the running service: the three PDFs generated from an
// analysed upload through the Temporal dev server and read back with a
// PDF reader; downloads through the signed URL; token charging and 402;
// share links whose page and JSON hold no value of the data; certificates
// verified without a credential and recomputed with an independent JCS
// library; schedules whose run e-mails the PDF to the outbox; roles,
// scopes, bad input and another organisation.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/dqs/dqs/internal/pdftext"
	"github.com/dqs/dqs/internal/servicetest"
)

// waitReport polls the report until it leaves pending.
func waitReport(t *testing.T, env *servicetest.Env, token, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		d := env.Must(200, "GET", "/api/v1/reports/"+id, token, nil).Data()
		if d["status"] != "pending" {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("report still pending after 90s: %v", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// downloadPDF follows the report's 307 to its signed URL and returns the
// PDF's bytes.
func downloadPDF(t *testing.T, env *servicetest.Env, token, id string) []byte {
	t.Helper()
	r := env.Do("GET", "/api/v1/reports/"+id+"/download", token, nil)
	loc := r.Header.Get("Location")
	if r.Status != http.StatusTemporaryRedirect || loc == "" {
		t.Fatalf("download = %d %s", r.Status, r.Raw)
	}
	if !strings.HasPrefix(loc, "http") {
		loc = env.BaseURL + loc
	}
	resp, err := http.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("signed URL = %d %s", resp.StatusCode, b)
	}
	return b
}

func balance(t *testing.T, env *servicetest.Env, token string) float64 {
	t.Helper()
	return env.Must(200, "GET", "/api/v1/billing/balance", token, nil).Data()["tokens"].(float64)
}

// rawValues are values of peopleCSV's rows that no share link may show.
var rawValues = []string{"user3@example.com", "Anna Svensson", "Mikko Virtanen", "2024-04-04"}

func TestReportsEndToEnd(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("reports"))
	job := upload(t, env, "/api/v1/public/upload", user.Access, map[string]string{"people.csv": peopleCSV(60)}).Data()
	j := waitJob(t, env, user.Access, fmt.Sprintf("/api/v1/jobs/%v", job["job_id"]))
	if j["status"] != "completed" {
		t.Fatalf("job = %v", j)
	}
	fileID := j["file_id"]

	// GDPR, basic: 5 tokens, pending with no file, then complete.
	before := balance(t, env, user.Access)
	gdpr := env.Must(202, "POST", "/api/v1/reports/generate", user.Access, map[string]any{"report_type": "gdpr_compliance",
		"config": map[string]any{"file_ids": []any{fileID}}}).Data()
	if gdpr["status"] != "pending" || gdpr["file_url"] != nil || gdpr["tokens_charged"] != float64(5) {
		t.Fatalf("generate = %v", gdpr)
	}
	if got := balance(t, env, user.Access); got != before-5 {
		t.Fatalf("balance %v after a 5-token report, was %v", got, before)
	}
	id := gdpr["id"].(string)
	done := waitReport(t, env, user.Access, id)
	if done["status"] != "complete" || done["file_url"] != "/api/v1/reports/"+id+"/download" || done["completed_at"] == nil {
		t.Fatalf("report = %v", done)
	}
	// The report is a node of the lineage graph, made from the file.
	g := env.Must(200, "GET", "/api/v1/lineage", user.Access, nil).Data()
	nodes := map[string]map[string]any{}
	for _, n := range g["nodes"].([]any) {
		n := n.(map[string]any)
		nodes[fmt.Sprint(n["type"], ":", n["ref_id"])] = n
	}
	reportNode, fileNode := nodes["report:"+id], nodes[fmt.Sprint("file:", fileID)]
	linked := false
	for _, e := range g["edges"].([]any) {
		e := e.(map[string]any)
		linked = linked || reportNode != nil && fileNode != nil && e["source_node_id"] == fileNode["id"] && e["target_node_id"] == reportNode["id"]
	}
	if !linked || !strings.HasPrefix(fmt.Sprint(reportNode["name"]), "GDPR compliance report, ") {
		t.Fatalf("no edge from the file to the report in %v", g)
	}
	text, _ := pdftext.Read(t, downloadPDF(t, env, user.Access, id))
	for _, want := range []string{"GDPR", "Article 30", "people.csv", "email", "To be completed by the controller"} {
		if !strings.Contains(text, want) {
			t.Errorf("GDPR report lacks %q: %.600s", want, text)
		}
	}

	// Executive summary, advanced: 10 tokens.
	exec := env.Must(202, "POST", "/api/v1/reports/generate", user.Access, map[string]any{"report_type": "executive_summary",
		"config": map[string]any{"level": "advanced"}}).Data()
	if exec["tokens_charged"] != float64(10) {
		t.Fatalf("advanced executive summary = %v", exec)
	}
	if d := waitReport(t, env, user.Access, exec["id"].(string)); d["status"] != "complete" {
		t.Fatalf("executive summary = %v", d)
	}
	text, _ = pdftext.Read(t, downloadPDF(t, env, user.Access, exec["id"].(string)))
	if !strings.Contains(text, "Executive summary") || !strings.Contains(text, "people.csv") {
		t.Errorf("executive summary text: %.600s", text)
	}

	// AI readiness: free, with a certificate.
	mid := balance(t, env, user.Access)
	ai := env.Must(202, "POST", "/api/v1/reports/generate", user.Access, map[string]any{"report_type": "ai_readiness"}).Data()
	aiID := ai["id"].(string)
	aiDone := waitReport(t, env, user.Access, aiID)
	if aiDone["status"] != "complete" || balance(t, env, user.Access) != mid {
		t.Fatalf("AI readiness = %v (balance %v, was %v)", aiDone, balance(t, env, user.Access), mid)
	}
	cert := aiDone["certificate"].(map[string]any)
	hash := cert["verification_hash"].(string)
	text, _ = pdftext.Read(t, downloadPDF(t, env, user.Access, aiID))
	if !strings.Contains(text, hash) || !strings.Contains(text, "Grade") {
		t.Errorf("AI readiness PDF lacks its hash %s: %.600s", hash, text)
	}
	checkCertificateHash(t, cert)

	// Verification needs no credential; a wrong hash is 404, a malformed
	// one 400.
	v := env.Must(200, "POST", "/api/v1/ai-readiness/certificates/verify", "", map[string]any{"verification_hash": strings.ToUpper(hash)}).Data()
	if v["valid"] != true || v["certificate"].(map[string]any)["report_id"] != aiID {
		t.Fatalf("verify = %v", v)
	}
	env.Must(404, "POST", "/api/v1/ai-readiness/certificates/verify", "", map[string]any{"verification_hash": strings.Repeat("0", 64)})
	env.Must(400, "POST", "/api/v1/ai-readiness/certificates/verify", "", map[string]any{"verification_hash": "abc"})
	env.Must(400, "POST", "/api/v1/ai-readiness/certificates/verify", "", "not json")

	// Sharing: AI readiness only; the page and the JSON show scores and
	// recommendations, never a value of the file; revoking ends both.
	env.Must(400, "POST", "/api/v1/reports/"+id+"/share", user.Access, nil)
	share := env.Must(201, "POST", "/api/v1/reports/"+aiID+"/share", user.Access, nil).Data()
	token := share["share_token"].(string)
	if len(token) < 43 || share["url"] != env.Config.AppURL+"/report/"+token {
		t.Fatalf("share = %v", share)
	}
	pub := env.Must(200, "GET", "/api/v1/public/reports/"+token, "", nil)
	if d := pub.Data(); d["grade"] != cert["grade"] || len(d["dimensions"].([]any)) != 7 || d["certificate"].(map[string]any)["verification_hash"] != hash {
		t.Fatalf("public report = %v", d)
	}
	page := env.Do("GET", "/report/"+token, "", nil)
	if page.Status != 200 || !strings.Contains(string(page.Raw), hash) || !strings.Contains(string(page.Raw), "Grade") {
		t.Fatalf("share page = %d %.300s", page.Status, page.Raw)
	}
	for _, raw := range rawValues {
		if strings.Contains(string(pub.Raw), raw) || strings.Contains(string(page.Raw), raw) {
			t.Errorf("a share link shows the value %q", raw)
		}
	}
	// The link keeps showing what the report said: data analysed later
	// does not change it.
	later := upload(t, env, "/api/v1/public/upload", user.Access, map[string]string{"orders.csv": "order_id,amount\n1,10\n2,20\n"}).Data()
	waitJob(t, env, user.Access, fmt.Sprintf("/api/v1/jobs/%v", later["job_id"]))
	if again := env.Must(200, "GET", "/api/v1/public/reports/"+token, "", nil); string(again.Raw) != string(pub.Raw) {
		t.Fatalf("the shared report changed with later data:\n%s\n%s", pub.Raw, again.Raw)
	}
	env.Must(200, "DELETE", "/api/v1/reports/"+aiID+"/share", user.Access, nil)
	env.Must(404, "GET", "/api/v1/public/reports/"+token, "", nil)
	if r := env.Do("GET", "/report/"+token, "", nil); r.Status != 404 {
		t.Fatalf("revoked share page = %d", r.Status)
	}
	env.Must(404, "GET", "/api/v1/public/reports/not-a-token", "", nil)

	// Listing, newest first, filtered by type.
	list := env.Must(200, "GET", "/api/v1/reports?report_type=ai_readiness", user.Access, nil)
	if items := list.List(); len(items) != 1 || items[0]["id"] != aiID {
		t.Fatalf("list = %s", list.Raw)
	}
	if all := env.Must(200, "GET", "/api/v1/reports?limit=2", user.Access, nil); len(all.List()) != 2 || all.Body["meta"].(map[string]any)["total"] != float64(3) {
		t.Fatalf("paged list = %s", all.Raw)
	}
	env.Must(400, "GET", "/api/v1/reports?report_type=pie_chart", user.Access, nil)

	// Another organisation sees none of it.
	other := env.Register(servicetest.Unique("reports-other"))
	for _, p := range []string{"/api/v1/reports/" + id, "/api/v1/reports/" + id + "/download"} {
		env.Must(404, "GET", p, other.Access, nil)
	}
	env.Must(404, "POST", "/api/v1/reports/"+aiID+"/share", other.Access, nil)
	env.Must(404, "DELETE", "/api/v1/reports/"+aiID+"/share", other.Access, nil)
	if l := env.Must(200, "GET", "/api/v1/reports", other.Access, nil).List(); len(l) != 0 {
		t.Fatalf("other organisation lists %v", l)
	}
	// Nor may it scope a report to this organisation's file.
	env.Must(404, "POST", "/api/v1/reports/generate", other.Access, map[string]any{"report_type": "gdpr_compliance",
		"config": map[string]any{"file_ids": []any{fileID}}})
}

// checkCertificateHash recomputes the verification hash as a third party
// would: the certificate without verification_hash, canonicalised by RFC
// 8785 (here with github.com/gowebpki/jcs), hashed with SHA-256.
func checkCertificateHash(t *testing.T, cert map[string]any) {
	t.Helper()
	body := map[string]any{}
	for k, v := range cert {
		if k != "verification_hash" {
			body[k] = v
		}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canonical)
	if got := hex.EncodeToString(sum[:]); got != cert["verification_hash"] {
		t.Fatalf("recomputed hash %s, certificate says %v (canonical %s)", got, cert["verification_hash"], canonical)
	}
	for _, k := range []string{"version", "certificate_id", "report_id", "organization", "score", "grade", "certified", "dimensions", "datasets", "issued_at"} {
		if _, ok := body[k]; !ok {
			t.Errorf("certificate lacks %q: %v", k, cert)
		}
	}
}

// TestReportRequestsRefused: bad input is 400 naming the problem, too few
// tokens 402 with nothing queued, a download before completion 409, and
// keys need their scope.
func TestReportRequestsRefused(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("reports-bad"))
	for _, body := range []any{
		map[string]any{"report_type": "pie_chart"},
		map[string]any{},
		map[string]any{"report_type": "gdpr_compliance", "config": map[string]any{"level": "deluxe"}},
		map[string]any{"report_type": "gdpr_compliance", "config": map[string]any{"files": []int{1}}},
		map[string]any{"report_type": "gdpr_compliance", "config": map[string]any{"file_ids": "all"}},
		map[string]any{"report_type": "gdpr_compliance", "config": map[string]any{"file_ids": []int{-1}}},
		map[string]any{"report_type": "gdpr_compliance", "config": map[string]any{"date_from": "2026-12-01", "date_to": "2026-11-01"}},
		map[string]any{"report_type": "gdpr_compliance", "config": map[string]any{"date_from": "yesterday"}},
		map[string]any{"report_type": "gdpr_compliance", "config": []int{1}},
		"{",
	} {
		if r := env.Do("POST", "/api/v1/reports/generate", user.Access, body); r.Status != 400 || r.ErrorCode() != "bad_request" {
			t.Errorf("%v: %d %s", body, r.Status, r.Raw)
		}
	}
	env.Must(404, "POST", "/api/v1/reports/generate", user.Access, map[string]any{"report_type": "executive_summary",
		"config": map[string]any{"source_ids": []int{999999}}})

	// A read key reads but does not generate; a write key generates.
	readKey, _ := env.APIKey(user, "read")
	if r := env.Do("POST", "/api/v1/reports/generate", readKey, map[string]any{"report_type": "ai_readiness"}); r.Status != 403 {
		t.Fatalf("read key generating = %d %s", r.Status, r.Raw)
	}
	env.Must(200, "GET", "/api/v1/reports", readKey, nil)

	// Too few tokens: 402, nothing queued, nothing charged.
	orgID := env.Must(200, "GET", "/api/v1/auth/me", user.Access, nil).Data()["organization"].(map[string]any)["id"].(string)
	if _, err := env.App.Stores.Orgs.SpendTokens(context.Background(), orgID, int64(balance(t, env, user.Access))-7); err != nil {
		t.Fatal(err)
	}
	r := env.Do("POST", "/api/v1/reports/generate", user.Access, map[string]any{"report_type": "gdpr_compliance", "config": map[string]any{"level": "advanced"}})
	if r.Status != 402 || r.ErrorCode() != "insufficient_tokens" {
		t.Fatalf("short balance = %d %s", r.Status, r.Raw)
	}
	if l := env.Must(200, "GET", "/api/v1/reports", user.Access, nil).List(); len(l) != 0 || balance(t, env, user.Access) != 7 {
		t.Fatalf("after a 402: reports %v, balance %v", l, balance(t, env, user.Access))
	}
	// A pending report cannot be downloaded or shared yet: 409.
	wfKey, _ := env.APIKey(user, "write")
	ai := env.Must(202, "POST", "/api/v1/reports/generate", wfKey, map[string]any{"report_type": "ai_readiness"}).Data()
	if err := env.App.Stores.DB.Gorm.Exec("UPDATE reports SET status = 'pending' WHERE id = ?", ai["id"]).Error; err != nil {
		t.Fatal(err)
	}
	waitReport(t, env, user.Access, ai["id"].(string)) // let the workflow finish, then hold it pending again
	if err := env.App.Stores.DB.Gorm.Exec("UPDATE reports SET status = 'pending' WHERE id = ?", ai["id"]).Error; err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{{"GET", "/download"}, {"POST", "/share"}} {
		if r := env.Do(p[0], "/api/v1/reports/"+ai["id"].(string)+p[1], user.Access, nil); r.Status != 409 || r.ErrorCode() != "report_not_ready" {
			t.Errorf("%s before completion = %d %s", p[1], r.Status, r.Raw)
		}
	}
}

// TestReportSchedules: an admin schedules a weekly report; running it
// e-mails the PDF to the recipients through the outbox and records the
// run; a run that cannot make its report is recorded failed; members list
// but do not change schedules; another organisation sees none.
func TestReportSchedules(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("sched-admin"))
	member := env.AddUser(admin, servicetest.Unique("sched-member"), "member")
	job := upload(t, env, "/api/v1/public/upload", admin.Access, map[string]string{"people.csv": peopleCSV(30)}).Data()
	waitJob(t, env, admin.Access, fmt.Sprintf("/api/v1/jobs/%v", job["job_id"]))

	to := servicetest.Unique("board")
	for _, body := range []map[string]any{
		{"report_type": "executive_summary", "frequency": "daily", "recipients": []string{to}},
		{"report_type": "executive_summary", "frequency": "weekly", "recipients": []string{"not an address"}},
		{"report_type": "executive_summary", "frequency": "weekly", "recipients": []string{}},
		{"report_type": "executive_summary", "frequency": "weekly"},
		{"report_type": "memo", "frequency": "weekly", "recipients": []string{to}},
		{"report_type": "executive_summary", "frequency": "weekly", "recipients": []string{to}, "config": map[string]any{"level": "x"}},
	} {
		if r := env.Do("POST", "/api/v1/reports/schedules", admin.Access, body); r.Status != 400 {
			t.Errorf("%v: %d %s", body, r.Status, r.Raw)
		}
	}
	body := map[string]any{"report_type": "executive_summary", "frequency": "weekly", "recipients": []string{to}, "enabled": true}
	if r := env.Do("POST", "/api/v1/reports/schedules", member.Access, body); r.Status != 403 {
		t.Fatalf("member creating = %d", r.Status)
	}
	sc := env.Must(201, "POST", "/api/v1/reports/schedules", admin.Access, body).Data()
	created, _ := time.Parse(time.RFC3339Nano, sc["created_at"].(string))
	next, _ := time.Parse(time.RFC3339Nano, sc["next_run_at"].(string))
	if d := next.Sub(created); d < 7*24*time.Hour-time.Second || d > 7*24*time.Hour+time.Second {
		t.Fatalf("next run %v after creation, want 7 days: %v", d, sc)
	}
	schedPath := "/api/v1/reports/schedules/" + sc["id"].(string)
	if l := env.Must(200, "GET", "/api/v1/reports/schedules", member.Access, nil).List(); len(l) != 1 {
		t.Fatalf("member lists %v", l)
	}
	env.Must(403, "PATCH", schedPath, member.Access, map[string]any{"enabled": false})
	env.Must(403, "DELETE", schedPath, member.Access, nil)

	// A run now: the report is generated, charged and e-mailed with its PDF.
	before := balance(t, env, admin.Access)
	env.Must(202, "POST", schedPath+"/run", admin.Access, nil)
	msg := env.WaitForMail(to, 90*time.Second)
	pdf := attachment(t, msg)
	text, _ := pdftext.Read(t, pdf)
	if !strings.Contains(text, "Executive summary") {
		t.Fatalf("attached PDF: %.300s", text)
	}
	run := waitRun(t, env, admin.Access, schedPath, func(d map[string]any) bool { return d["last_run_status"] != nil })
	if run["last_run_status"] != "complete" || run["last_report_id"] == nil || balance(t, env, admin.Access) != before-5 {
		t.Fatalf("after the run: %v, balance %v (was %v)", run, balance(t, env, admin.Access), before)
	}

	// A config naming a source the organisation does not hold is refused;
	// a run that cannot make its report (too few tokens) is recorded
	// failed with the reason, and the schedule stays.
	env.Must(404, "PATCH", schedPath, admin.Access, map[string]any{"config": map[string]any{"source_ids": []int{999999}}})
	orgID := env.Must(200, "GET", "/api/v1/auth/me", admin.Access, nil).Data()["organization"].(map[string]any)["id"].(string)
	if _, err := env.App.Stores.Orgs.SpendTokens(context.Background(), orgID, int64(balance(t, env, admin.Access))); err != nil {
		t.Fatal(err)
	}
	env.Must(202, "POST", schedPath+"/run", admin.Access, nil)
	failed := waitRun(t, env, admin.Access, schedPath, func(d map[string]any) bool { return d["last_run_status"] == "failed" })
	if !strings.Contains(fmt.Sprint(failed["last_run_error"]), "tokens") {
		t.Fatalf("failed run: %v", failed)
	}

	// Updates and deletion; another organisation sees none of it.
	upd := env.Must(200, "PATCH", schedPath, admin.Access, map[string]any{"frequency": "quarterly", "enabled": false}).Data()
	if upd["frequency"] != "quarterly" || upd["enabled"] != false || upd["next_run_at"] != nil {
		t.Fatalf("update = %v", upd)
	}
	other := env.Register(servicetest.Unique("sched-other"))
	env.Must(404, "GET", schedPath, other.Access, nil)
	env.Must(404, "PATCH", schedPath, other.Access, map[string]any{"enabled": true})
	env.Must(404, "DELETE", schedPath, other.Access, nil)
	env.Must(404, "POST", schedPath+"/run", other.Access, nil)
	env.Must(200, "DELETE", schedPath, admin.Access, nil)
	env.Must(404, "GET", schedPath, admin.Access, nil)
}

func waitRun(t *testing.T, env *servicetest.Env, token, path string, done func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		d := env.Must(200, "GET", path, token, nil).Data()
		if done(d) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("schedule run not recorded after 90s: %v", d)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// attachment returns the PDF attached to an e-mail.
func attachment(t *testing.T, raw string) []byte {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("no PDF attached: %v", err)
		}
		if strings.HasPrefix(p.Header.Get("Content-Type"), "application/pdf") {
			b, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, p))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}
