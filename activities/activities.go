// Package activities holds the Temporal activities: an Activities struct
// with the dependencies, one thin, idempotent method per activity, calling
// into stores and engine packages.
package activities

import (
	"context"
	"fmt"
	"github.com/dqs/dqs/analysis"
	"log/slog"
	"net/url"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/contractsvc"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/mailer"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/retention"
	"github.com/dqs/dqs/scans"
	"github.com/dqs/dqs/secrets"
	"github.com/dqs/dqs/sources"
	"github.com/dqs/dqs/spool"
	"github.com/dqs/dqs/webhook"
	"go.temporal.io/sdk/temporal"
)

// Activities holds what activities need.
type Activities struct {
	Stores *models.Stores
	Mailer mailer.Mailer
	Blobs  blob.Store
	Audit  audit.Recorder
	AppURL string
	Logger *slog.Logger
	// Retention turns a job's retention into times; the zero value is
	// production's (24-hour days, deletion at 02:00 UTC).
	Retention retention.Policy
	// Events publishes to subscribed webhooks; nil publishes nothing.
	Events events.Publisher
	// Webhooks sends webhook messages; Secrets unseals their URLs.
	Webhooks *webhook.Sender
	Secrets  *secrets.Box
	// Memory bounds what analysing a file may take, from the process's
	// pool (shared with the API's prescans in a single process).
	Memory analysis.Limits
	// Sources opens data sources for scans, through the network guard.
	Sources *sources.Service
	// ScanWorkflows tells whether a scan's workflow still runs, so that a
	// schedule's run can end a scan abandoned by its workflow; nil leaves
	// such scans alone.
	ScanWorkflows scans.Workflows
	// Contracts evaluates the data contracts of a source after a
	// scheduled scan; nil evaluates none.
	Contracts *contractsvc.Service
	// Spool holds the stored files being analysed; a process's leftovers
	// are removed when the next starts. nil: the system's temporary
	// directory.
	Spool *spool.Dir
}

// verificationTTL is how long an e-mailed verification link works.
const verificationTTL = 48 * time.Hour

// VerificationEmailInput names the user to e-mail.
type VerificationEmailInput struct {
	OrgID  string
	UserID string
}

// SendVerificationEmail makes a verification token, stores its hash and
// e-mails the link. A retry makes a new token; every unexpired one works.
// A user deleted meanwhile ends the work without retrying.
func (a *Activities) SendVerificationEmail(ctx context.Context, in VerificationEmailInput) error {
	u, err := a.Stores.Users.Get(ctx, in.OrgID, in.UserID)
	if err != nil {
		if isNotFound(err) {
			return temporal.NewNonRetryableApplicationError("user no longer exists", "user_not_found", nil)
		}
		return err
	}
	if u.EmailVerifiedAt != nil {
		return nil
	}
	token := auth.RandomToken(32)
	v := &models.EmailVerification{UserID: u.ID, TokenHash: auth.HashToken(token), ExpiresAt: time.Now().UTC().Add(verificationTTL)}
	if err := a.Stores.EmailVerifications.Create(ctx, in.OrgID, v); err != nil {
		return err
	}
	link := a.AppURL + "/verify-email?token=" + url.QueryEscape(token)
	body := fmt.Sprintf(`Welcome to DQS.

Confirm your e-mail address by opening this link:

  %s

or by sending the token to the API:

  curl -X POST %s/api/v1/auth/verify-email -H 'Content-Type: application/json' -d '{"token":"%s"}'

The link works for %d hours. If you did not sign up, ignore this message.
`, link, a.AppURL, token, int(verificationTTL.Hours()))
	return a.Mailer.Send(ctx, mailer.Message{To: []string{u.Email}, Subject: "Confirm your e-mail address for DQS", Text: body})
}

// purgeGrace keeps expired tokens a day, so reuse detection still
// recognises a family shortly after it expired.
const purgeGrace = 24 * time.Hour

// PurgeExpiredCredentials deletes refresh and verification tokens that
// expired more than a day ago, across organisations.
func (a *Activities) PurgeExpiredCredentials(ctx context.Context) (int64, error) {
	n, err := a.Stores.RefreshTokens.PurgeExpired(ctx, time.Now().UTC().Add(-purgeGrace))
	if err == nil {
		a.Logger.Info("purged expired credentials", "rows", n)
	}
	return n, err
}
