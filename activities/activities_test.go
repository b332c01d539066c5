package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/mailer"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
	"github.com/dqs/dqs/scanner"
)

const appURL = "https://dqs.example.com"

type fixture struct {
	acts   *Activities
	stores *models.Stores
	outbox string
	org    *models.Organization
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := modelstest.Open(t, models.SQLite)
	s := models.NewStores(db)
	org := &models.Organization{Name: "Acme"}
	if err := s.Orgs.Create(context.Background(), org); err != nil {
		t.Fatalf("create org: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "outbox")
	return &fixture{
		acts: &Activities{
			Stores: s,
			Mailer: mailer.NewOutbox(dir, "DQS <no-reply@dqs.local>"),
			AppURL: appURL,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		},
		stores: s,
		outbox: dir,
		org:    org,
	}
}

func (f *fixture) user(t *testing.T, email string) *models.User {
	t.Helper()
	u := &models.User{Email: email, PasswordHash: "x", Role: models.RoleAdmin}
	if err := f.stores.Users.Create(context.Background(), f.org.ID, u); err != nil {
		t.Fatalf("create user: %v", err)
	}
	return u
}

// messages returns the .eml files in the outbox.
func (f *fixture) messages(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(f.outbox)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".eml") {
			out = append(out, filepath.Join(f.outbox, e.Name()))
		}
	}
	return out
}

var tokenInLink = regexp.MustCompile(`/verify-email\?token=([^\s]+)`)

// readMessage parses an .eml file and returns its recipient and body.
func readMessage(t *testing.T, path string) (to []*mail.Address, subject, body string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := mail.ReadMessage(f)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	to, err = m.Header.AddressList("To")
	if err != nil {
		t.Fatalf("To header: %v", err)
	}
	if enc := m.Header.Get("Content-Transfer-Encoding"); enc != "" && enc != "7bit" {
		t.Fatalf("Content-Transfer-Encoding = %q; the test reads 7bit bodies", enc)
	}
	b, err := io.ReadAll(m.Body)
	if err != nil {
		t.Fatal(err)
	}
	return to, m.Header.Get("Subject"), string(b)
}

func TestSendVerificationEmailToUnverifiedUser(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, "Ada@Example.com")

	if err := f.acts.SendVerificationEmail(ctx, VerificationEmailInput{OrgID: f.org.ID, UserID: u.ID}); err != nil {
		t.Fatalf("SendVerificationEmail: %v", err)
	}

	msgs := f.messages(t)
	if len(msgs) != 1 {
		t.Fatalf("outbox holds %d messages, want 1", len(msgs))
	}
	to, subject, body := readMessage(t, msgs[0])
	if len(to) != 1 || to[0].Address != "ada@example.com" {
		t.Fatalf("To = %v, want ada@example.com", to)
	}
	if subject == "" {
		t.Error("empty subject")
	}
	match := tokenInLink.FindStringSubmatch(body)
	if match == nil {
		t.Fatalf("no verification link in body:\n%s", body)
	}
	if !strings.Contains(body, appURL+"/verify-email?token=") {
		t.Errorf("link does not use the app URL:\n%s", body)
	}
	token, err := url.QueryUnescape(match[1])
	if err != nil {
		t.Fatalf("token %q: %v", match[1], err)
	}
	if len(token) < 32 {
		t.Fatalf("token %q too short", token)
	}
	// The token in the API example is the same one.
	if !strings.Contains(body, `{"token":"`+token+`"}`) {
		t.Errorf("curl example does not carry the token:\n%s", body)
	}

	// Only the hash is stored, never the token itself.
	var stored []models.EmailVerification
	if err := f.stores.DB.Gorm.Find(&stored).Error; err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 {
		t.Fatalf("verification rows = %d, want 1", len(stored))
	}
	if stored[0].TokenHash == token || stored[0].TokenHash != auth.HashToken(token) {
		t.Fatalf("stored hash %q is not HashToken of the e-mailed token", stored[0].TokenHash)
	}
	if stored[0].UserID != u.ID || stored[0].OrgID != f.org.ID {
		t.Fatalf("verification row %+v does not belong to the user", stored[0])
	}
	if d := time.Until(stored[0].ExpiresAt); d < 47*time.Hour || d > 49*time.Hour {
		t.Errorf("token expires in %v, want about 48h", d)
	}

	// The e-mailed token verifies, once.
	v, err := f.stores.EmailVerifications.Consume(ctx, auth.HashToken(token), time.Now())
	if err != nil {
		t.Fatalf("consume the e-mailed token: %v", err)
	}
	if v.UserID != u.ID || v.OrgID != f.org.ID {
		t.Fatalf("consumed token %+v belongs to another user", v)
	}
	if _, err := f.stores.EmailVerifications.Consume(ctx, auth.HashToken(token), time.Now()); err == nil {
		t.Fatal("the token verified twice")
	}
}

func TestSendVerificationEmailRetryMakesNewWorkingToken(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, "bob@example.com")
	in := VerificationEmailInput{OrgID: f.org.ID, UserID: u.ID}
	for i := 0; i < 2; i++ {
		if err := f.acts.SendVerificationEmail(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	msgs := f.messages(t)
	if len(msgs) != 2 {
		t.Fatalf("messages = %d, want 2", len(msgs))
	}
	tokens := map[string]bool{}
	for _, m := range msgs {
		_, _, body := readMessage(t, m)
		match := tokenInLink.FindStringSubmatch(body)
		if match == nil {
			t.Fatalf("no link in %s", body)
		}
		tok, _ := url.QueryUnescape(match[1])
		tokens[tok] = true
	}
	if len(tokens) != 2 {
		t.Fatalf("the two e-mails carry the same token")
	}
	for tok := range tokens {
		if _, err := f.stores.EmailVerifications.Consume(ctx, auth.HashToken(tok), time.Now()); err != nil {
			t.Fatalf("token from a retried send does not verify: %v", err)
		}
	}
}

func TestSendVerificationEmailToVerifiedUserSendsNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, "carol@example.com")
	if err := f.stores.Users.MarkEmailVerified(ctx, f.org.ID, u.ID, time.Now()); err != nil {
		t.Fatal(err)
	}

	if err := f.acts.SendVerificationEmail(ctx, VerificationEmailInput{OrgID: f.org.ID, UserID: u.ID}); err != nil {
		t.Fatalf("SendVerificationEmail: %v, want nil", err)
	}
	if msgs := f.messages(t); len(msgs) != 0 {
		t.Fatalf("outbox holds %d messages, want none", len(msgs))
	}
	var n int64
	if err := f.stores.DB.Gorm.Model(&models.EmailVerification{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("verification rows = %d, want 0", n)
	}
}

func TestSendVerificationEmailToMissingUserIsNonRetryable(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// Another organisation's user is missing too (tenancy).
	other := &models.Organization{Name: "Other"}
	if err := f.stores.Orgs.Create(ctx, other); err != nil {
		t.Fatal(err)
	}
	u := f.user(t, "dave@example.com")

	for name, in := range map[string]VerificationEmailInput{
		"unknown id":     {OrgID: f.org.ID, UserID: models.NewID()},
		"other org's id": {OrgID: other.ID, UserID: u.ID},
	} {
		t.Run(name, func(t *testing.T) {
			err := f.acts.SendVerificationEmail(ctx, in)
			if err == nil {
				t.Fatal("err = nil, want a non-retryable error")
			}
			var appErr *temporal.ApplicationError
			if !errors.As(err, &appErr) {
				t.Fatalf("err = %v (%T), want *temporal.ApplicationError", err, err)
			}
			if !appErr.NonRetryable() {
				t.Fatalf("application error %v is retryable", appErr)
			}
			if appErr.Type() != "user_not_found" {
				t.Errorf("type = %q, want user_not_found", appErr.Type())
			}
		})
	}
	if msgs := f.messages(t); len(msgs) != 0 {
		t.Fatalf("outbox holds %d messages, want none", len(msgs))
	}
}

func TestSendVerificationEmailMailerFailureIsRetryable(t *testing.T) {
	f := newFixture(t)
	u := f.user(t, "erin@example.com")
	f.acts.Mailer = mailer.NewOutbox("", "DQS <no-reply@dqs.local>") // unconfigured: Send fails
	err := f.acts.SendVerificationEmail(context.Background(), VerificationEmailInput{OrgID: f.org.ID, UserID: u.ID})
	if err == nil {
		t.Fatal("err = nil with a failing mailer")
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.NonRetryable() {
		t.Fatalf("a mailer failure is non-retryable: %v", err)
	}
}

func TestPurgeExpiredCredentialsRemovesOnlyExpired(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u := f.user(t, "frank@example.com")
	now := time.Now().UTC()

	// Expired long ago (past the one-day grace): purged.
	// Expired an hour ago (within the grace, kept for reuse detection) and
	// still valid: kept.
	ages := map[string]time.Time{
		"old":    now.Add(-72 * time.Hour),
		"recent": now.Add(-time.Hour),
		"valid":  now.Add(time.Hour),
	}
	for name, exp := range ages {
		rt := &models.RefreshToken{UserID: u.ID, FamilyID: models.NewID(), TokenHash: auth.HashToken("rt-" + name), ExpiresAt: exp}
		if err := f.stores.RefreshTokens.Create(ctx, f.org.ID, rt); err != nil {
			t.Fatal(err)
		}
		ev := &models.EmailVerification{UserID: u.ID, TokenHash: auth.HashToken("ev-" + name), ExpiresAt: exp}
		if err := f.stores.EmailVerifications.Create(ctx, f.org.ID, ev); err != nil {
			t.Fatal(err)
		}
	}

	n, err := f.acts.PurgeExpiredCredentials(ctx)
	if err != nil {
		t.Fatalf("PurgeExpiredCredentials: %v", err)
	}
	if n != 2 {
		t.Fatalf("purged %d rows, want 2 (one refresh token, one verification)", n)
	}

	var rts []models.RefreshToken
	if err := f.stores.DB.Gorm.Find(&rts).Error; err != nil {
		t.Fatal(err)
	}
	var evs []models.EmailVerification
	if err := f.stores.DB.Gorm.Find(&evs).Error; err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{}
	for _, r := range rts {
		left[r.TokenHash] = true
	}
	for _, v := range evs {
		left[v.TokenHash] = true
	}
	for _, kind := range []string{"rt-", "ev-"} {
		if left[auth.HashToken(kind+"old")] {
			t.Errorf("%sold survived the purge", kind)
		}
		for _, keep := range []string{"recent", "valid"} {
			if !left[auth.HashToken(kind+keep)] {
				t.Errorf("%s%s was purged", kind, keep)
			}
		}
	}

	// Idempotent: nothing more to purge.
	if n, err := f.acts.PurgeExpiredCredentials(ctx); err != nil || n != 0 {
		t.Fatalf("second purge = %d, %v; want 0, nil", n, err)
	}
}

// TestSourceAtFault: the faults a retry will not mend fail the item at
// once with their message, a table that ran past the profile timeout
// among them; a dropped connection is retried.
func TestSourceAtFault(t *testing.T) {
	for _, c := range []struct {
		err   error
		final bool
	}{
		{fmt.Errorf("%w: the source did not finish in time: table \"t\" could not be profiled within 1h0m0s", connectors.ErrTimedOut), true},
		{fmt.Errorf("%w: table \"t\"", connectors.ErrNotFound), true},
		{fmt.Errorf("%w: 3000 columns", connectors.ErrTooWide), true},
		{fmt.Errorf("%w: bad sslmode", connectors.ErrInvalid), true},
		{fmt.Errorf("%w: not a data file", scanner.ErrBadInput), true},
		{errors.New("connection reset by peer"), false},
		{context.DeadlineExceeded, false},
	} {
		if got := sourceAtFault(c.err); got != c.final {
			t.Errorf("sourceAtFault(%v) = %v, want %v", c.err, got, c.final)
		}
	}
}

// TestScanActivitiesStopWhenTheScanEnded: a scan ended while its workflow
// waited (failed as abandoned) is neither read nor written by the scan's
// activities: each ends the workflow quietly, and nothing is stored.
func TestScanActivitiesStopWhenTheScanEnded(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	src := &models.Source{Name: "lake", Type: "s3", Config: "{}", CredentialsSealed: "sealed"}
	if err := f.stores.Sources.Create(ctx, f.org.ID, src); err != nil {
		t.Fatal(err)
	}
	sc := &models.Scan{SourceID: src.ID}
	if err := f.stores.Scans.Create(ctx, f.org.ID, sc); err != nil {
		t.Fatal(err)
	}
	if err := f.stores.Scans.Finish(ctx, f.org.ID, sc.ID, models.ScanFailed, "abandoned", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	ref := ScanRef{OrgID: f.org.ID, ScanID: sc.ID}
	item := ScanItemInput{Scan: ref, Item: ScanItem{Name: "a.csv", DiscoveredID: 1}, Error: "x"}
	_, errBegin := f.acts.BeginScan(ctx, ref)
	_, errItem := f.acts.ScanItem(ctx, item)
	_, errRecord := f.acts.RecordScanItemFailure(ctx, item)
	_, errDetect := f.acts.DetectAnomalies(ctx, ref)
	_, errContracts := f.acts.EvaluateContracts(ctx, ref)
	for name, err := range map[string]error{"BeginScan": errBegin, "ScanItem": errItem, "RecordScanItemFailure": errRecord,
		"DetectAnomalies": errDetect, "EvaluateContracts": errContracts} {
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != ErrTypeSourceDeleted || !appErr.NonRetryable() {
			t.Errorf("%s on an ended scan = %v, want a final %s error", name, err, ErrTypeSourceDeleted)
		}
	}
	if tables, err := f.stores.Scans.Tables(ctx, f.org.ID, sc.ID); err != nil || len(tables) != 0 {
		t.Fatalf("tables of the ended scan = %v, %v; want none", tables, err)
	}
}
