// Package api is the HTTP layer: a route table, middleware for request ids,
// logging, credentials, organisation scope, roles and scopes, rate limits
// and the envelope, and thin handlers that parse, authorise, call a store or
// start a workflow, and render.
package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/contractsvc"
	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/jobs"
	"github.com/dqs/dqs/lineagesvc"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/ratelimit"
	"github.com/dqs/dqs/reportsvc"
	"github.com/dqs/dqs/scans"
	"github.com/dqs/dqs/secrets"
	"github.com/dqs/dqs/sources"
	"github.com/dqs/dqs/spool"
	"github.com/dqs/dqs/webhook"
	"github.com/gin-gonic/gin"
)

// Workflows starts the durable work the API asks for.
type Workflows interface {
	// SendVerificationEmail starts the delivery of a verification e-mail.
	SendVerificationEmail(ctx context.Context, orgID, userID string) error
}

// BlobURLVerifier checks the signed URLs the local blob driver issues.
type BlobURLVerifier interface {
	Verify(token string, now time.Time) (key, filename string, err error)
}

// Deps are the API's collaborators, built by cmd/dqs.
type Deps struct {
	Config    *config.Config
	Stores    *models.Stores
	Audit     audit.Recorder
	Limiter   ratelimit.Store
	Signer    *auth.Signer
	Secrets   *secrets.Box
	Workflows Workflows
	// Jobs starts jobs' analyses and files' re-analyses.
	Jobs *jobs.Service
	// Sources manages data sources.
	Sources *sources.Service
	// Scans starts scans of sources.
	Scans *scans.Service
	// Contracts manages and evaluates data contracts.
	Contracts *contractsvc.Service
	// Lineage reads and edits the lineage graph.
	Lineage *lineagesvc.Service
	// Reports generates, shares and schedules reports.
	Reports *reportsvc.Service
	// Corrections edits correction pipelines.
	Corrections *correctionsvc.Service
	Blobs       blob.Store
	// LocalBlobs is set when blob storage is the local directory: the API
	// then serves the signed download URLs itself.
	LocalBlobs BlobURLVerifier
	// WebhookGuard checks webhook URLs when they are saved; WebhookSender
	// sends the test message.
	WebhookGuard  *webhook.Guard
	WebhookSender *webhook.Sender
	// Spool is the process's directory for uploads being received.
	Spool *spool.Dir
	// Memory bounds what a prescan may take, from the process's pool.
	Memory  analysis.Limits
	Logger  *slog.Logger
	Version string
}

// Server holds the handlers' dependencies.
type Server struct {
	Deps
	engine *gin.Engine
	routes []route
}

// New builds the HTTP handler.
func New(d Deps) (*Server, error) {
	if d.Config == nil || d.Limiter == nil || d.Logger == nil {
		return nil, errors.New("api: Config, Limiter and Logger are required")
	}
	gin.SetMode(gin.ReleaseMode)
	auth.PrepareDummyPassword()
	s := &Server{Deps: d}
	e := gin.New()
	e.HandleMethodNotAllowed = false
	if err := e.SetTrustedProxies(d.Config.TrustedProxies); err != nil {
		return nil, err
	}
	e.Use(s.requestContext, s.recoverPanics)
	s.routes = s.routeTable()
	for _, r := range s.routes {
		e.Handle(r.Method, r.Path, s.chain(r)...)
	}
	e.NoRoute(s.anonymousLimit, func(c *gin.Context) {
		renderError(c, errNoRoute)
	})
	s.engine = e
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.engine.ServeHTTP(w, r) }

// Routes returns the route table (for the OpenAPI and authorisation tests).
func (s *Server) Routes() []RouteInfo {
	out := make([]RouteInfo, len(s.routes))
	for i, r := range s.routes {
		out[i] = RouteInfo{Method: r.Method, Path: r.Path, Access: r.Access, Role: r.Role, Scope: r.scope()}
	}
	return out
}
