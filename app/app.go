// Package app wires configuration to constructors: database, Temporal
// client, stores, audit writer, rate limiter, keys, mailer, the HTTP API and
// the workers. cmd/dqs and the integration tests both build the service
// through it, so they run the same code.
package app

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/api"
	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/contractsvc"
	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/jobs"
	"github.com/dqs/dqs/lineagesvc"
	"github.com/dqs/dqs/mailer"
	"github.com/dqs/dqs/membudget"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/netguard"
	"github.com/dqs/dqs/ratelimit"
	"github.com/dqs/dqs/reportsvc"
	"github.com/dqs/dqs/retention"
	"github.com/dqs/dqs/scans"
	"github.com/dqs/dqs/secrets"
	"github.com/dqs/dqs/sources"
	"github.com/dqs/dqs/spool"
	"github.com/dqs/dqs/webhook"
	"github.com/dqs/dqs/worker"
	"github.com/dqs/dqs/workflows"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
)

// Options choose what one process runs.
type Options struct {
	API     bool // serve HTTP
	Worker  bool // run Temporal workers and ensure schedules
	Version string
	Logger  *slog.Logger
	// Temporal is an existing client (tests); nil dials the configured address.
	Temporal client.Client
	// WebhookTest, for tests only, lets webhooks reach a loopback HTTPS
	// receiver trusted through its own certificate. No configuration
	// variable sets it, so a deployed service never can.
	WebhookTest *WebhookTest
}

// WebhookTest is the test-only webhook setting.
type WebhookTest struct {
	RootCAs *x509.CertPool // trusted instead of the system roots
}

// webhookRequestTimeout bounds one webhook request, delivery or test
// (SPEC.md: the test request times out after 10 seconds).
const webhookRequestTimeout = 10 * time.Second

// newWebhookSender builds the guarded webhook client; loopback targets are
// allowed only under the test-only option.
func newWebhookSender(opt Options) (*webhook.Guard, *webhook.Sender) {
	var guardOpt webhook.GuardOptions
	senderOpt := webhook.SenderOptions{Timeout: webhookRequestTimeout}
	if opt.WebhookTest != nil {
		guardOpt.AllowLoopback = true
		senderOpt.RootCAs = opt.WebhookTest.RootCAs
	}
	g := webhook.NewGuard(guardOpt)
	return g, webhook.NewSender(g, senderOpt)
}

// App is a built service.
type App struct {
	Config   *config.Config
	Logger   *slog.Logger
	DB       *models.DB
	Stores   *models.Stores
	Temporal client.Client
	Audit    *audit.Writer
	API      *api.Server
	Workers  *worker.Workers
	// Spool is the process's directory for uploads being received (API)
	// and stored files being analysed (worker).
	Spool *spool.Dir

	ownsTemporal bool
}

// NewLogger returns the JSON logger of the configured level.
func NewLogger(cfg *config.Config, w *os.File) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// DatabaseURL resolves the configured database (SQLite under the data
// directory by default).
func DatabaseURL(cfg *config.Config) string {
	if cfg.DatabaseURL != "" {
		return cfg.DatabaseURL
	}
	return "sqlite:" + filepath.Join(cfg.DataDir, "dqs.db")
}

// OpenDatabase opens and migrates the configured database.
func OpenDatabase(ctx context.Context, cfg *config.Config) (*models.DB, error) {
	db, err := models.Open(DatabaseURL(cfg))
	if err != nil {
		return nil, err
	}
	db.SetLineageCache(cfg.LineageCache)
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// SpoolRoot is where API processes spool uploads and workers download the
// files they analyse, one locked directory a process: under the data
// directory, so it is on disk (not a memory-backed /tmp) and writable where
// the root file system is read-only.
func SpoolRoot(cfg *config.Config) string { return filepath.Join(cfg.DataDir, "spool") }

// New builds the service. It migrates the database first, so every process
// shape starts against the schema it expects.
func New(ctx context.Context, cfg *config.Config, opt Options) (*App, error) {
	a := &App{Config: cfg, Logger: opt.Logger}
	if a.Logger == nil {
		a.Logger = NewLogger(cfg, os.Stderr)
	}
	ok := false
	defer func() {
		if !ok {
			a.Close(context.Background())
		}
	}()
	jwtKey, encKey, err := loadKeys(cfg, opt.API)
	if err != nil {
		return nil, err
	}
	box, err := secrets.NewBox(encKey)
	if err != nil {
		return nil, err
	}
	blobs, err := newBlobStore(ctx, cfg, encKey)
	if err != nil {
		return nil, err
	}
	if opt.API || opt.Worker {
		// Removes what processes that crashed left in the spool.
		if a.Spool, err = spool.Open(SpoolRoot(cfg), a.Logger); err != nil {
			return nil, err
		}
	}
	if a.DB, err = OpenDatabase(ctx, cfg); err != nil {
		return nil, err
	}
	a.Stores = models.NewStores(a.DB)
	a.Audit = audit.NewWriter(a.Stores.Audit, a.Logger)

	a.Temporal = opt.Temporal
	if a.Temporal == nil {
		a.Temporal, err = client.DialContext(ctx, client.Options{
			HostPort:  cfg.TemporalAddress,
			Namespace: cfg.TemporalNamespace,
			Logger:    tlog.NewStructuredLogger(a.Logger.With("component", "temporal")),
		})
		if err != nil {
			return nil, fmt.Errorf("connect to Temporal at %s: %w (is the Temporal server running? `make run` starts one)", cfg.TemporalAddress, err)
		}
		a.ownsTemporal = true
	}

	names := workflows.NamesFor(cfg.TemporalPrefix)
	guard, sender := newWebhookSender(opt)
	memory := analysis.Limits{FileMemory: cfg.FileMemoryBudget, Pool: membudget.NewPool(cfg.MemoryBudget)}
	setSoftMemoryLimit(cfg)
	bus := events.Bus{Webhooks: a.Stores.Webhooks, Delivery: worker.WebhookDeliveries{Client: a.Temporal, Names: names}}
	lineageSvc := &lineagesvc.Service{Stores: a.Stores}
	contractsSvc := &contractsvc.Service{Stores: a.Stores, Events: bus, Affected: lineageSvc.TableDownstream}
	sourcesSvc := &sources.Service{Stores: a.Stores, Secrets: box, Guard: netguard.New(cfg.SourceGuard()), Audit: a.Audit, Logger: a.Logger}
	if opt.Worker {
		acts := &activities.Activities{Sources: sourcesSvc, Stores: a.Stores, Mailer: newMailer(cfg), Blobs: blobs.store, Audit: a.Audit,
			AppURL: strings.TrimRight(cfg.AppURL, "/"), Logger: a.Logger, Retention: retentionPolicy(cfg, a.Logger),
			Events: bus, Contracts: contractsSvc, Webhooks: sender, Secrets: box, Memory: memory, Spool: a.Spool,
			ScanWorkflows: worker.Scans{Client: a.Temporal, Names: names}}
		if err := worker.Setup(ctx, a.Temporal, names); err != nil {
			return nil, err
		}
		if a.Workers, err = worker.Start(a.Temporal, names, acts, cfg.WorkerQueues); err != nil {
			return nil, err
		}
	}
	if opt.API {
		signer, err := auth.NewSigner(jwtKey)
		if err != nil {
			return nil, err
		}
		a.API, err = api.New(api.Deps{
			Config: cfg, Stores: a.Stores, Audit: a.Audit, Limiter: ratelimit.NewMemory(),
			Signer: signer, Secrets: box, Workflows: api.TemporalWorkflows{Client: a.Temporal, Names: names},
			Jobs:    &jobs.Service{Stores: a.Stores, Workflows: jobs.Temporal{Client: a.Temporal, Names: names}, Audit: a.Audit, Logger: a.Logger},
			Sources: sourcesSvc, Contracts: contractsSvc, Lineage: lineageSvc,
			Corrections: &correctionsvc.Service{Stores: a.Stores, Blobs: blobs.store, Spool: a.Spool, Logger: a.Logger,
				Workflows: worker.Corrections{Client: a.Temporal, Names: names}},
			Reports: &reportsvc.Service{Stores: a.Stores, Workflows: worker.Reports{Client: a.Temporal, Names: names},
				Schedules: worker.ReportSchedules{Client: a.Temporal, Names: names}, AppURL: cfg.AppURL, Logger: a.Logger},
			Scans: &scans.Service{Stores: a.Stores, Sources: sourcesSvc, Workflows: worker.Scans{Client: a.Temporal, Names: names},
				Schedules: worker.SourceSchedules{Client: a.Temporal, Names: names}, Logger: a.Logger},
			Blobs: blobs.store, LocalBlobs: blobs.local, WebhookGuard: guard, WebhookSender: sender,
			Spool: a.Spool, Memory: memory, Logger: a.Logger, Version: opt.Version,
		})
		if err != nil {
			return nil, err
		}
	}
	ok = true
	return a, nil
}

// setSoftMemoryLimit has the Go collector work harder as the heap nears the
// memory budget, instead of letting garbage grow to twice what is live
// (GOGC's default), unless GOMEMLIMIT says otherwise. The quarter above the
// budget is for what the budget does not count: the runtime, the API's
// requests, Temporal's client.
func setSoftMemoryLimit(cfg *config.Config) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cfg.MemoryBudget + cfg.MemoryBudget/4)
	}
}

// loadKeys returns the JWT key (when the process serves the API) and the
// secrets box. Without configured keys the single-machine shape generates
// them once into the data directory; a PostgreSQL (cluster) deployment must
// configure them, because replicas must share them.
func loadKeys(cfg *config.Config, api bool) (jwtKey, encKey []byte, err error) {
	cluster := strings.HasPrefix(cfg.DatabaseURL, "postgres")
	if cluster && cfg.EncryptionKey == "" {
		return nil, nil, errors.New("with PostgreSQL, set DQS_ENCRYPTION_KEY: every replica must use the same key")
	}
	if cluster && api && cfg.JWTSecret == "" {
		return nil, nil, errors.New("with PostgreSQL, set DQS_JWT_SECRET: every API replica must use the same key")
	}
	switch {
	case !api:
		// A worker signs nothing.
	case cfg.JWTSecret != "":
		if jwtKey = []byte(cfg.JWTSecret); len(jwtKey) < 32 {
			return nil, nil, errors.New("DQS_JWT_SECRET must be at least 32 bytes")
		}
	default:
		if jwtKey, err = secrets.LoadOrCreateKeyFile(filepath.Join(cfg.DataDir, "jwt.key"), 32); err != nil {
			return nil, nil, err
		}
	}
	if cfg.EncryptionKey != "" {
		if encKey, err = secrets.DecodeKey(cfg.EncryptionKey, secrets.KeySize); err != nil {
			return nil, nil, fmt.Errorf("DQS_ENCRYPTION_KEY: %w", err)
		}
	} else if encKey, err = secrets.LoadOrCreateKeyFile(filepath.Join(cfg.DataDir, "encryption.key"), secrets.KeySize); err != nil {
		return nil, nil, err
	}
	return jwtKey, encKey, nil
}

func newMailer(cfg *config.Config) mailer.Mailer {
	if cfg.SMTPHost == "" {
		return mailer.NewOutbox(cfg.OutboxDir, cfg.SMTPFrom)
	}
	return mailer.NewSMTP(mailer.SMTPConfig{Host: cfg.SMTPHost, Port: cfg.SMTPPort, Username: cfg.SMTPUsername,
		Password: cfg.SMTPPassword, From: cfg.SMTPFrom, TLS: cfg.SMTPTLS})
}

// ServeListener serves the API on ln until ctx ends.
func (a *App) ServeListener(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: a.API, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	return nil
}

// Close stops the workers, writes the queued audit entries and closes the
// connections.
func (a *App) Close(ctx context.Context) {
	if a.Workers != nil {
		a.Workers.Stop()
	}
	if a.Audit != nil {
		flush, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := a.Audit.Close(flush); err != nil {
			a.Logger.Error("audit entries not flushed", "error", err)
		}
		cancel()
	}
	if a.ownsTemporal && a.Temporal != nil {
		a.Temporal.Close()
	}
	if a.DB != nil {
		a.DB.Close()
	}
	if a.Spool != nil {
		if err := a.Spool.Close(); err != nil {
			a.Logger.Warn("spool directory not removed", "error", err)
		}
	}
}

// retentionPolicy is production's unless the test-only shortened day is
// set, which is said loudly: files would be deleted within seconds.
func retentionPolicy(cfg *config.Config, log *slog.Logger) retention.Policy {
	if cfg.TestRetentionDay <= 0 {
		return retention.Production()
	}
	log.Warn("DQS_TEST_RETENTION_DAY is set: raw files are deleted after days of this length, not at 02:00 UTC; never use this in production",
		"day", cfg.TestRetentionDay.String())
	return retention.ForTests(cfg.TestRetentionDay)
}
