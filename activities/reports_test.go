package activities

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/internal/emulators"
	"github.com/dqs/dqs/internal/pdftext"
	"github.com/dqs/dqs/mailer"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/reports"
	"github.com/dqs/dqs/reportsvc"
)

// reportCSV is the upload the reports show: p.csv, as storedCSV names it.
const reportCSV = "customer_id,email,country,signup_date\n" +
	"1,ada@example.com,FR,2024-01-02\n" +
	"2,grace@example.org,DE,2024-02-03\n" +
	"3,,IT,2024-03-04\n" +
	"4,linus@example.net,FI,2024-04-05\n"

// analysedUpload stores p.csv in store and analyses it with the real
// AnalyzeFile activity (downloading it back from store), so that the
// organisation has one analysed dataset for its reports to show.
func analysedUpload(t *testing.T, f *fixture, store blob.Store) *models.File {
	t.Helper()
	f.acts.Blobs, f.acts.Spool = store, openSpool(t, f)
	j, file := storedCSV(t, f, store, reportCSV, nil)
	env := new(testsuite.WorkflowTestSuite).NewTestActivityEnvironment()
	env.RegisterActivity(f.acts)
	if _, err := env.ExecuteActivity(f.acts.AnalyzeFile, FileRef{OrgID: f.org.ID, JobID: j.ID, FileID: file.ID, Total: 1}); err != nil {
		t.Fatalf("AnalyzeFile: %v", err)
	}
	got, err := f.stores.Files.Get(context.Background(), f.org.ID, file.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != models.FileCompleted {
		t.Fatalf("the upload was not analysed: %s %q", got.Status, got.Error)
	}
	return got
}

// pendingReport stores a pending basic report of kind, as the API does
// before starting its workflow.
func pendingReport(t *testing.T, f *fixture, kind reports.Kind) *models.Report {
	t.Helper()
	r := &models.Report{ID: uuid.NewString(), ReportType: string(kind), Level: string(reports.Basic), Config: "{}"}
	if err := f.stores.Reports.Create(context.Background(), f.org.ID, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkReportPDF reads the PDF's text and checks that it is the report
// of kind for the fixture's organisation, showing the analysed upload
// and, for AI readiness, the certificate issued with it.
func checkReportPDF(t *testing.T, f *fixture, r *models.Report, pdf []byte) {
	t.Helper()
	text, pages := pdftext.Read(t, pdf)
	kind := reports.Kind(r.ReportType)
	for _, want := range []string{kind.Title(), f.org.Name, "p.csv"} {
		if !strings.Contains(text, want) {
			t.Errorf("the %s PDF (%d pages) does not say %q:\n%s", kind, pages, want, text)
		}
	}
	cert, err := f.stores.Certificates.ForReport(context.Background(), f.org.ID, r.ID)
	if kind != reports.AIReadiness {
		if !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("a %s report has a certificate: %+v, %v", kind, cert, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("no certificate for the AI readiness report: %v", err)
	}
	if want := "Verification hash " + cert.VerificationHash; !strings.Contains(text, want) {
		t.Errorf("the PDF does not print its certificate's hash %q", cert.VerificationHash)
	}
}

// TestReportDownloadsThroughS3AndGCS builds reports into the project's S3
// and GCS blob stores, each driving its emulator through the official
// client library, and downloads them as a browser following the API's
// redirect would: a plain GET of the signed URL.
//
// Neither emulator verifies signatures or expiry (gofakes3 ignores the
// SigV4 query; fake-gcs-server, serving on its own address as its public
// host, ignores the V4 one), so the test checks those on the URL itself:
// algorithm, credential, a signature present, the 15-minute expiry. What
// the fetch proves is that the URL names the object BuildReport stored,
// under the store's prefix, that the stored bytes are the report's PDF
// with its content type, and that the download's file name reaches the
// response. Whether S3 or GCS would accept the signature is not checked.
func TestReportDownloadsThroughS3AndGCS(t *testing.T) {
	const prefix = "tenant-data"
	for _, st := range []struct {
		name  string
		start func(t *testing.T) (blob.Store, string)
		// signed checks the provider's signature parameters.
		signed func(t *testing.T, q url.Values)
	}{
		{"s3", func(t *testing.T) (blob.Store, string) {
			e := emulators.StartS3(t)
			return e.Store(t, prefix), e.URL
		}, func(t *testing.T, q url.Values) {
			if q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" || q.Get("X-Amz-Signature") == "" ||
				!strings.HasPrefix(q.Get("X-Amz-Credential"), emulators.S3AccessKeyID+"/") || q.Get("X-Amz-Expires") != "900" {
				t.Errorf("not a 15-minute SigV4 presigned URL: %v", q)
			}
		}},
		{"gcs", func(t *testing.T) (blob.Store, string) {
			e := emulators.StartGCS(t, emulators.GCSOptions{ServeSignedURLs: true})
			return e.Store(t, prefix), e.URL()
		}, func(t *testing.T, q url.Values) {
			if q.Get("X-Goog-Algorithm") != "GOOG4-RSA-SHA256" || q.Get("X-Goog-Signature") == "" ||
				!strings.HasPrefix(q.Get("X-Goog-Credential"), emulators.GCSServiceAccount+"/") || q.Get("X-Goog-Expires") != "900" {
				t.Errorf("not a 15-minute V4 signed URL: %v", q)
			}
		}},
	} {
		for _, kind := range []reports.Kind{reports.AIReadiness, reports.GDPRCompliance} {
			t.Run(st.name+"/"+string(kind), func(t *testing.T) {
				ctx := context.Background()
				f := newFixture(t)
				store, base := st.start(t)
				analysedUpload(t, f, store)
				r := pendingReport(t, f, kind)
				ref := ReportRef{OrgID: f.org.ID, ReportID: r.ID}

				if err := f.acts.BuildReport(ctx, ref); err != nil {
					t.Fatalf("BuildReport: %v", err)
				}
				got, err := f.stores.Reports.Get(ctx, f.org.ID, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				wantKey := "orgs/" + f.org.ID + "/reports/" + r.ID + ".pdf"
				if got.Status != models.ReportComplete || got.StorageKey != wantKey || got.CompletedAt == nil || got.Error != "" {
					t.Fatalf("report %s, key %q, completed %v, error %q; want complete under %q", got.Status, got.StorageKey, got.CompletedAt, got.Error, wantKey)
				}

				filename := reportsvc.FileName(got) // what the API names the download
				u, err := store.SignedURL(ctx, got.StorageKey, 15*time.Minute, filename)
				if err != nil {
					t.Fatalf("SignedURL: %v", err)
				}
				pu, err := url.Parse(u)
				if err != nil {
					t.Fatal(err)
				}
				if want := base + "/" + emulators.Bucket + "/" + prefix + "/" + wantKey + "?"; !strings.HasPrefix(u, want) {
					t.Errorf("signed URL %q, want it to start %q", u, want)
				}
				st.signed(t, pu.Query())

				resp, err := http.Get(u)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET signed URL: %s: %.200s", resp.Status, body)
				}
				if ct := resp.Header.Get("Content-Type"); ct != "application/pdf" {
					t.Errorf("Content-Type = %q, want application/pdf", ct)
				}
				if cd, want := resp.Header.Get("Content-Disposition"), blob.ContentDisposition(filename); cd != want {
					t.Errorf("Content-Disposition = %q, want %q", cd, want)
				}
				if int64(len(body)) != got.SizeBytes {
					t.Errorf("downloaded %d bytes, the report records %d", len(body), got.SizeBytes)
				}
				checkReportPDF(t, f, got, body)
				var certID string
				if kind == reports.AIReadiness {
					c, err := f.stores.Certificates.ForReport(ctx, f.org.ID, r.ID)
					if err != nil {
						t.Fatal(err)
					}
					certID = c.ID
				}

				// A second run (an activity retried after the report
				// completed) does nothing: the stored PDF is deleted first,
				// so a run that rendered and stored again would leave one.
				if err := store.Delete(ctx, got.StorageKey); err != nil {
					t.Fatal(err)
				}
				if err := f.acts.BuildReport(ctx, ref); err != nil {
					t.Fatalf("second BuildReport: %v", err)
				}
				if _, err := store.Stat(ctx, got.StorageKey); !errors.Is(err, blob.ErrNotFound) {
					t.Errorf("the second BuildReport stored the PDF again (Stat: %v)", err)
				}
				again, err := f.stores.Reports.Get(ctx, f.org.ID, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				if again.Status != models.ReportComplete || again.StorageKey != got.StorageKey || again.SizeBytes != got.SizeBytes ||
					!again.CompletedAt.Equal(*got.CompletedAt) {
					t.Errorf("after a second BuildReport: %s %q %d bytes at %v; was %s %q %d bytes at %v", again.Status, again.StorageKey,
						again.SizeBytes, again.CompletedAt, got.Status, got.StorageKey, got.SizeBytes, got.CompletedAt)
				}
				if kind == reports.AIReadiness {
					c, err := f.stores.Certificates.ForReport(ctx, f.org.ID, r.ID)
					if err != nil || c.ID != certID {
						t.Errorf("certificate after a second BuildReport: %+v, %v; want %s", c, err, certID)
					}
				}
			})
		}
	}
}

// TestEmailReportOverSMTP runs a schedule's report through to the
// recipients' mailbox: the report is created from the schedule, built
// into a local blob store, then e-mailed by the SMTP transport to a real
// SMTP server, which must receive one message for both recipients with
// the PDF attached.
func TestEmailReportOverSMTP(t *testing.T) {
	const user, pass = "dqs-reports", "s3cr3t-P@ss"
	ctx := context.Background()
	f := newFixture(t)
	srv := emulators.StartSMTP(t, emulators.SMTPOptions{Username: user, Password: pass, RequireAuth: true, AllowInsecureAuth: true})
	f.acts.Mailer = mailer.NewSMTP(mailer.SMTPConfig{Host: srv.Host, Port: srv.Port, TLS: "none", Username: user, Password: pass,
		From: "DQS <reports@dqs.example>", Timeout: 10 * time.Second})
	analysedUpload(t, f, localStore(t))

	sc := &models.ReportSchedule{ID: uuid.NewString(), ReportType: string(reports.AIReadiness), Frequency: "weekly",
		Recipients: `["cfo@example.com","board@example.com"]`, Config: "{}", Enabled: true}
	if err := f.stores.ReportSchedules.Create(ctx, f.org.ID, sc); err != nil {
		t.Fatal(err)
	}
	ref := ReportScheduleRef{OrgID: f.org.ID, ScheduleID: sc.ID, ReportID: uuid.NewString()}
	id, err := f.acts.CreateScheduledReport(ctx, ref)
	if err != nil || id != ref.ReportID {
		t.Fatalf("CreateScheduledReport = %q, %v; want %q", id, err, ref.ReportID)
	}
	if err := f.acts.BuildReport(ctx, ReportRef{OrgID: f.org.ID, ReportID: id}); err != nil {
		t.Fatalf("BuildReport: %v", err)
	}
	r, err := f.stores.Reports.Get(ctx, f.org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != models.ReportComplete || r.ScheduleID == nil || *r.ScheduleID != sc.ID {
		t.Fatalf("report %s of schedule %v, want complete of %s", r.Status, r.ScheduleID, sc.ID)
	}

	if err := f.acts.EmailReport(ctx, ref); err != nil {
		t.Fatalf("EmailReport: %v", err)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("the SMTP server received %d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.From != "reports@dqs.example" || strings.Join(m.Rcpts, ",") != "cfo@example.com,board@example.com" || m.User != user {
		t.Errorf("envelope from %q to %v (user %q); want reports@dqs.example to cfo@example.com, board@example.com as %s", m.From, m.Rcpts, m.User, user)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatalf("the message does not parse: %v", err)
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 2 || to[0].Address != "cfo@example.com" || to[1].Address != "board@example.com" {
		t.Errorf("To: %v (%v)", to, err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || !strings.HasPrefix(subject, "DQS: AI readiness report, ") || strings.Contains(subject, f.org.Name) {
		t.Errorf("Subject = %q (%v)", subject, err)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("Content-Type = %q (%v), want multipart/mixed", msg.Header.Get("Content-Type"), err)
	}
	var text string
	var pdfs [][]byte
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("NextPart: %v", err)
		}
		ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		switch ct {
		case "text/plain": // multipart.Reader decodes quoted-printable
			b, err := io.ReadAll(part)
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		case "application/pdf":
			if cte := part.Header.Get("Content-Transfer-Encoding"); cte != "base64" {
				t.Errorf("the PDF is sent %q, want base64", cte)
			}
			if part.FileName() != reportsvc.FileName(r) {
				t.Errorf("attachment named %q, want %q", part.FileName(), reportsvc.FileName(r))
			}
			b, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, part))
			if err != nil {
				t.Fatalf("the attachment is not base64: %v", err)
			}
			pdfs = append(pdfs, b)
		default:
			t.Errorf("unexpected part %q", part.Header.Get("Content-Type"))
		}
	}
	if !strings.Contains(text, "/api/v1/reports/"+r.ID) || !strings.Contains(text, "weekly schedule") {
		t.Errorf("the text does not link the report or name its schedule:\n%s", text)
	}
	if len(pdfs) != 1 {
		t.Fatalf("%d PDF attachments, want 1", len(pdfs))
	}
	if int64(len(pdfs[0])) != r.SizeBytes {
		t.Errorf("the attached PDF has %d bytes, the stored one %d", len(pdfs[0]), r.SizeBytes)
	}
	checkReportPDF(t, f, r, pdfs[0])

	// The schedule deleted while its run went on: nothing is sent, and
	// the error says not to retry.
	if err := f.stores.ReportSchedules.Delete(ctx, f.org.ID, sc.ID); err != nil {
		t.Fatal(err)
	}
	err = f.acts.EmailReport(ctx, ref)
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != ErrTypeReportGone || !appErr.NonRetryable() {
		t.Errorf("EmailReport of a deleted schedule = %v, want a non-retryable %s error", err, ErrTypeReportGone)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Errorf("the SMTP server has %d messages after the schedule was deleted, want 1", n)
	}
}
