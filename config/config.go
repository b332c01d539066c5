// Package config reads the service's settings from DQS_* environment
// variables. Every setting has a working default for the single-machine shape
// (`make run`); the cluster shape overrides the database, Temporal and e-mail
// settings. `dqs --help` prints the table below, so it is the one list.
package config

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dqs/dqs/netguard"
	"github.com/dqs/dqs/ratelimit"
)

// Config holds every setting of the service.
type Config struct {
	HTTPAddr          string
	AppURL            string
	DataDir           string
	DatabaseURL       string
	TemporalAddress   string
	TemporalNamespace string
	TemporalUIURL     string
	TemporalPrefix    string
	JWTSecret         string
	EncryptionKey     string
	AccessTokenTTL    time.Duration
	RefreshTokenTTL   time.Duration
	OutboxDir         string
	SMTPHost          string
	SMTPPort          int
	SMTPUsername      string
	SMTPPassword      string
	SMTPFrom          string
	SMTPTLS           string
	LogLevel          string
	TrustedProxies    []string
	Limits            Limits
	MaxUploadBytes    int64
	// FileMemoryBudget is the memory reading and profiling one file may
	// take; MemoryBudget the memory of a process the files read at once
	// share (see analysis.Limits).
	FileMemoryBudget int64
	MemoryBudget     int64
	WSLifetime       time.Duration
	// LineageCache is the memory, in bytes, a process gives copies of
	// lineage graphs for the walks (0: none; models.DB.SetLineageCache).
	LineageCache int64
	Blob         Blob
	// WorkerQueues selects the task queues a `dqs worker` process polls.
	WorkerQueues WorkerQueues
	// SourceAllowNetworks are private or reserved networks data sources
	// may reach (DQS_SOURCE_ALLOW_NETWORKS), e.g. 10.0.0.0/8 for a
	// database on the private network; see SourceGuard.
	SourceAllowNetworks []netip.Prefix
	// SourceAllowLoopback lets data sources reach 127.0.0.0/8 and ::1
	// (DQS_SOURCE_ALLOW_LOOPBACK). Unset, it is false after Load and true
	// after SingleMachine (dqs dev).
	SourceAllowLoopback bool
	// sourceAllowLoopbackSet records that DQS_SOURCE_ALLOW_LOOPBACK was
	// set, so SingleMachine keeps an explicit false.
	sourceAllowLoopbackSet bool
	// TestRetentionDay shortens a retention day for end-to-end tests of
	// raw-file deletion; zero (the default) is the real 24-hour day with
	// deletion at 02:00 UTC. Production never sets it.
	TestRetentionDay time.Duration
}

// Blob selects and configures blob storage for uploaded files.
type Blob struct {
	Driver string // local, s3 or gcs
	Dir    string // local: directory; empty means $DQS_DATA_DIR/blobs
	Bucket string
	Prefix string
	Region string
	// Endpoint points the S3 or GCS client at a compatible server.
	Endpoint        string
	AccessKeyID     string
	SecretAccessKey string
	// GCSCredentialsFile is a service account JSON file.
	GCSCredentialsFile string
}

// WorkerQueues selects the task queues a worker process polls. Splitting
// them lets long file analyses run on workers of their own, so they never
// hold up an e-mail or a webhook behind them.
type WorkerQueues string

const (
	// AllQueues polls both queues: the single-machine shape and the default.
	AllQueues WorkerQueues = "all"
	// DefaultQueue polls <prefix>-default: every workflow and the short
	// activities (database updates, e-mail, webhooks, retention).
	DefaultQueue WorkerQueues = "default"
	// AnalysisQueue polls <prefix>-analysis: the activities that read a
	// whole file.
	AnalysisQueue WorkerQueues = "analysis"
)

// ParseWorkerQueues reads DQS_WORKER_QUEUES or `dqs worker --queues`.
func ParseWorkerQueues(v string) (WorkerQueues, error) {
	switch q := WorkerQueues(v); q {
	case AllQueues, DefaultQueue, AnalysisQueue:
		return q, nil
	}
	return "", fmt.Errorf("want all, default or analysis")
}

// PollsDefault reports whether the worker polls the default queue.
func (q WorkerQueues) PollsDefault() bool { return q == AllQueues || q == DefaultQueue }

// PollsAnalysis reports whether the worker polls the analysis queue.
func (q WorkerQueues) PollsAnalysis() bool { return q == AllQueues || q == AnalysisQueue }

// Limits are the rate limits of DECISIONS.md; each may be overridden as
// "COUNT/DURATION", e.g. DQS_RATE_LIMIT_AUTH=10/1m.
type Limits struct {
	Auth    ratelimit.Rule // per client IP, authentication endpoints
	General ratelimit.Rule // per user or API key (per IP when anonymous)
	Upload  ratelimit.Rule // per user, uploads and prescan
	Jobs    ratelimit.Rule // per user, job create and start
	Billing ratelimit.Rule // per organisation, adding credits
	WS      ratelimit.Rule // per client IP, WebSocket connections
}

type setting struct {
	name, def, help string
	secret          bool
	set             func(c *Config, v string) error
}

func str(p func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *p(c) = v; return nil }
}

func dur(p func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration such as 15m")
		}
		*p(c) = d
		return nil
	}
}

func rule(p func(*Config) *ratelimit.Rule) func(*Config, string) error {
	return func(c *Config, v string) error {
		r, err := ParseRule(v)
		if err != nil {
			return err
		}
		*p(c) = r
		return nil
	}
}

// ParseRule reads a rate limit written "COUNT/DURATION", e.g. "600/1m".
func ParseRule(v string) (ratelimit.Rule, error) {
	n, w, ok := strings.Cut(v, "/")
	count, err := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err != nil || count < 1 {
		return ratelimit.Rule{}, fmt.Errorf("want COUNT/DURATION such as 600/1m")
	}
	d, err := time.ParseDuration(strings.TrimSpace(w))
	if err != nil || d <= 0 {
		return ratelimit.Rule{}, fmt.Errorf("want COUNT/DURATION such as 600/1m")
	}
	return ratelimit.Rule{Limit: count, Window: d}, nil
}

var settings = []setting{
	{name: "DQS_HTTP_ADDR", def: ":8080", help: "address the API listens on", set: str(func(c *Config) *string { return &c.HTTPAddr })},
	{name: "DQS_APP_URL", def: "http://localhost:8080", help: "public base URL, used in e-mailed links", set: str(func(c *Config) *string { return &c.AppURL })},
	{name: "DQS_DATA_DIR", def: "./data", help: "directory for the SQLite database, generated keys, the e-mail outbox and the upload spool (spool/)", set: str(func(c *Config) *string { return &c.DataDir })},
	{name: "DQS_DATABASE_URL", def: "", help: "postgres://… for PostgreSQL, or sqlite:PATH; empty means SQLite at $DQS_DATA_DIR/dqs.db", secret: true, set: str(func(c *Config) *string { return &c.DatabaseURL })},
	{name: "DQS_TEMPORAL_ADDRESS", def: "127.0.0.1:7233", help: "Temporal frontend host:port", set: str(func(c *Config) *string { return &c.TemporalAddress })},
	{name: "DQS_TEMPORAL_NAMESPACE", def: "default", help: "Temporal namespace", set: str(func(c *Config) *string { return &c.TemporalNamespace })},
	{name: "DQS_TEMPORAL_PREFIX", def: "dqs", help: "prefix of task queue and schedule names, so deployments can share a namespace", set: func(c *Config, v string) error {
		for _, r := range v {
			if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return fmt.Errorf("want letters, digits, - or _")
			}
		}
		c.TemporalPrefix = v
		return nil
	}},
	{name: "DQS_WORKER_QUEUES", def: string(AllQueues), help: "task queues a dqs worker polls: all, default (workflows and short tasks) or analysis (file analysis); dqs dev always polls all", set: func(c *Config, v string) error {
		q, err := ParseWorkerQueues(v)
		c.WorkerQueues = q
		return err
	}},
	{name: "DQS_TEMPORAL_UI_URL", def: "http://localhost:8233", help: "Temporal Web UI address, printed at start", set: str(func(c *Config) *string { return &c.TemporalUIURL })},
	{name: "DQS_JWT_SECRET", def: "", help: "HMAC key for access tokens (32+ bytes); empty means generated once into $DQS_DATA_DIR/jwt.key", secret: true, set: str(func(c *Config) *string { return &c.JWTSecret })},
	{name: "DQS_ENCRYPTION_KEY", def: "", help: "base64 32-byte key encrypting secrets at rest (TOTP seeds, source credentials); empty means generated once into $DQS_DATA_DIR/encryption.key", secret: true, set: str(func(c *Config) *string { return &c.EncryptionKey })},
	{name: "DQS_ACCESS_TOKEN_TTL", def: "15m", help: "lifetime of access tokens", set: dur(func(c *Config) *time.Duration { return &c.AccessTokenTTL })},
	{name: "DQS_REFRESH_TOKEN_TTL", def: "720h", help: "lifetime of refresh tokens", set: dur(func(c *Config) *time.Duration { return &c.RefreshTokenTTL })},
	{name: "DQS_OUTBOX_DIR", def: "", help: "where e-mail is written as .eml files when no SMTP host is set; empty means $DQS_DATA_DIR/outbox", set: str(func(c *Config) *string { return &c.OutboxDir })},
	{name: "DQS_SMTP_HOST", def: "", help: "SMTP server; when set, e-mail is sent over SMTP instead of the outbox", set: str(func(c *Config) *string { return &c.SMTPHost })},
	{name: "DQS_SMTP_PORT", def: "587", help: "SMTP port", set: func(c *Config, v string) error {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("want a port number")
		}
		c.SMTPPort = p
		return nil
	}},
	{name: "DQS_SMTP_USERNAME", def: "", help: "SMTP user (AUTH PLAIN when set)", set: str(func(c *Config) *string { return &c.SMTPUsername })},
	{name: "DQS_SMTP_PASSWORD", def: "", help: "SMTP password", secret: true, set: str(func(c *Config) *string { return &c.SMTPPassword })},
	{name: "DQS_SMTP_FROM", def: "DQS <no-reply@dqs.local>", help: "sender address of e-mail", set: str(func(c *Config) *string { return &c.SMTPFrom })},
	{name: "DQS_SMTP_TLS", def: "starttls", help: "SMTP transport security: starttls, tls or none", set: func(c *Config, v string) error {
		switch v {
		case "starttls", "tls", "none":
			c.SMTPTLS = v
			return nil
		}
		return fmt.Errorf("want starttls, tls or none")
	}},
	{name: "DQS_LOG_LEVEL", def: "info", help: "debug, info, warn or error", set: func(c *Config, v string) error {
		switch v {
		case "debug", "info", "warn", "error":
			c.LogLevel = v
			return nil
		}
		return fmt.Errorf("want debug, info, warn or error")
	}},
	{name: "DQS_TRUSTED_PROXIES", def: "", help: "comma-separated proxy IPs/CIDRs whose X-Forwarded-For is trusted for the client IP", set: func(c *Config, v string) error {
		c.TrustedProxies = nil
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				c.TrustedProxies = append(c.TrustedProxies, p)
			}
		}
		return nil
	}},
	{name: "DQS_MAX_UPLOAD_BYTES", def: "1073741824", help: "largest accepted upload in bytes (default 1 GiB); larger requests are refused with 413, before the body is read when the declared Content-Length is above this plus 1 MiB of multipart framing", set: func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("want a positive number of bytes")
		}
		c.MaxUploadBytes = n
		return nil
	}},
	{name: "DQS_FILE_MEMORY_BUDGET", def: "2GiB", help: "memory that reading and profiling one file may take (at least 128MiB); a file that would need more (huge pages, compression bombs, too many columns) is refused with a message saying why", set: func(c *Config, v string) error {
		n, err := parseBytes(v)
		if err == nil && n < 128<<20 {
			err = fmt.Errorf("want at least 128MiB")
		}
		c.FileMemoryBudget = n
		return err
	}},
	{name: "DQS_MEMORY_BUDGET", def: "", help: "memory the files analysed and prescanned at once in one process share; a file waits until its budget is free. Also the Go runtime's soft memory limit, unless GOMEMLIMIT is set. Empty means three quarters of the process's cgroup limit or of the machine's memory", set: func(c *Config, v string) error {
		if v == "" {
			c.MemoryBudget = defaultMemoryBudget()
			return nil
		}
		n, err := parseBytes(v)
		c.MemoryBudget = n
		return err
	}},
	{name: "DQS_LINEAGE_CACHE", def: "256MiB", help: "memory a process gives copies of lineage graphs, all organisations together, so that neighbourhoods and blast radii of large graphs do not read SQL level by level (a 100,000-node, 300,000-edge graph takes about 80MiB); 0 turns the copies off", set: func(c *Config, v string) error {
		if strings.TrimSpace(v) == "0" {
			c.LineageCache = 0
			return nil
		}
		n, err := parseBytes(v)
		c.LineageCache = n
		return err
	}},
	{name: "DQS_WS_LIFETIME", def: "10m", help: "how long a progress WebSocket stays open before it closes with 1001", set: dur(func(c *Config) *time.Duration { return &c.WSLifetime })},
	{name: "DQS_BLOB_DRIVER", def: "local", help: "blob storage for uploaded files: local, s3 or gcs", set: func(c *Config, v string) error {
		switch v {
		case "local", "s3", "gcs":
			c.Blob.Driver = v
			return nil
		}
		return fmt.Errorf("want local, s3 or gcs")
	}},
	{name: "DQS_BLOB_DIR", def: "", help: "local blob directory; empty means $DQS_DATA_DIR/blobs", set: str(func(c *Config) *string { return &c.Blob.Dir })},
	{name: "DQS_BLOB_BUCKET", def: "", help: "S3 or GCS bucket", set: str(func(c *Config) *string { return &c.Blob.Bucket })},
	{name: "DQS_BLOB_PREFIX", def: "", help: "key prefix inside the bucket", set: str(func(c *Config) *string { return &c.Blob.Prefix })},
	{name: "DQS_BLOB_REGION", def: "eu-north-1", help: "S3 region", set: str(func(c *Config) *string { return &c.Blob.Region })},
	{name: "DQS_BLOB_ENDPOINT", def: "", help: "S3-compatible or GCS endpoint URL (empty: the cloud's own)", set: str(func(c *Config) *string { return &c.Blob.Endpoint })},
	{name: "DQS_BLOB_ACCESS_KEY_ID", def: "", help: "S3 access key id (empty: the default credential chain)", set: str(func(c *Config) *string { return &c.Blob.AccessKeyID })},
	{name: "DQS_BLOB_SECRET_ACCESS_KEY", def: "", help: "S3 secret access key", secret: true, set: str(func(c *Config) *string { return &c.Blob.SecretAccessKey })},
	{name: "DQS_BLOB_GCS_CREDENTIALS_FILE", def: "", help: "GCS service account JSON file", set: str(func(c *Config) *string { return &c.Blob.GCSCredentialsFile })},
	{name: "DQS_RATE_LIMIT_AUTH", def: "10/1m", help: "authentication endpoints, per client IP", set: rule(func(c *Config) *ratelimit.Rule { return &c.Limits.Auth })},
	{name: "DQS_RATE_LIMIT_GENERAL", def: "600/1m", help: "every other endpoint, per user or API key", set: rule(func(c *Config) *ratelimit.Rule { return &c.Limits.General })},
	{name: "DQS_RATE_LIMIT_UPLOAD", def: "30/1m", help: "uploads and prescan, per user", set: rule(func(c *Config) *ratelimit.Rule { return &c.Limits.Upload })},
	{name: "DQS_RATE_LIMIT_JOBS", def: "20/1h", help: "job create and start, per user", set: rule(func(c *Config) *ratelimit.Rule { return &c.Limits.Jobs })},
	{name: "DQS_RATE_LIMIT_BILLING", def: "10/1h", help: "adding credits, per organisation", set: rule(func(c *Config) *ratelimit.Rule { return &c.Limits.Billing })},
	{name: "DQS_RATE_LIMIT_WS", def: "30/1m", help: "WebSocket connections, per client IP", set: rule(func(c *Config) *ratelimit.Rule { return &c.Limits.WS })},
	{name: "DQS_SOURCE_ALLOW_NETWORKS", def: "", help: "comma-separated networks (CIDR, e.g. 10.0.0.0/8,fd12:3456::/48) that data sources may reach although they are private or reserved; every other private, loopback, link-local (cloud metadata) and special address stays refused", set: func(c *Config, v string) error {
		p, err := ParseNetworks(v)
		c.SourceAllowNetworks = p
		return err
	}},
	{name: "DQS_SOURCE_ALLOW_LOOPBACK", def: "", help: "true lets data sources reach loopback (127.0.0.0/8, ::1); empty means true under dqs dev (single machine: sources often run beside it) and false under dqs api and dqs worker", set: func(c *Config, v string) error {
		c.SourceAllowLoopback, c.sourceAllowLoopbackSet = false, v != ""
		if v == "" {
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		c.SourceAllowLoopback = b
		return nil
	}},
	{name: "DQS_TEST_RETENTION_DAY", def: "", help: "TESTS ONLY, never in production: the length of one retention day (e.g. 2s); files are then deleted right at expiry instead of at 02:00 UTC", set: func(c *Config, v string) error {
		if v == "" {
			c.TestRetentionDay = 0
			return nil
		}
		return dur(func(c *Config) *time.Duration { return &c.TestRetentionDay })(c, v)
	}},
}

// Load reads the configuration from the environment through getenv
// (os.Getenv in production, a map in tests). An invalid value is an error
// naming the variable but never echoing a secret value.
func Load(getenv func(string) string) (*Config, error) {
	c := &Config{}
	for _, s := range settings {
		v := getenv(s.name)
		if v == "" {
			v = s.def
		}
		if err := s.set(c, v); err != nil {
			if s.secret {
				return nil, fmt.Errorf("%s: invalid value: %v", s.name, err)
			}
			return nil, fmt.Errorf("%s=%q: %v", s.name, v, err)
		}
	}
	if c.OutboxDir == "" {
		c.OutboxDir = filepath.Join(c.DataDir, "outbox")
	}
	if c.Blob.Dir == "" {
		c.Blob.Dir = filepath.Join(c.DataDir, "blobs")
	}
	// One file must fit in the pool, or it would wait forever.
	c.FileMemoryBudget = min(c.FileMemoryBudget, c.MemoryBudget)
	return c, nil
}

// ParseNetworks reads DQS_SOURCE_ALLOW_NETWORKS: comma-separated networks
// in CIDR form; spaces and empty items are ignored, and "" is none (nil).
// A network is refused when it is an address without a length (write
// 10.1.2.3/32), has host bits set (10.1.2.3/8: which network was meant?)
// or is IPv4 written as IPv4-mapped IPv6.
func ParseNetworks(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, err := netip.ParsePrefix(item)
		switch {
		case err != nil:
			if a, aerr := netip.ParseAddr(item); aerr == nil && a.Zone() == "" {
				return nil, fmt.Errorf("%s is an address, not a network; write %s/%d for it alone", item, a, a.BitLen())
			}
			return nil, fmt.Errorf("%q is not a network in CIDR form such as 10.0.0.0/8 or fd12:3456::/48", item)
		case p.Addr().Is4In6():
			return nil, fmt.Errorf("%s is IPv4-mapped IPv6; write the IPv4 network, such as 10.0.0.0/8", item)
		case p != p.Masked():
			return nil, fmt.Errorf("%s has bits set after the first %d; did you mean %s?", item, p.Bits(), p.Masked())
		}
		out = append(out, p)
	}
	return out, nil
}

// SingleMachine applies the defaults of the single-machine shape (dqs
// dev), where one process is the whole service on one machine, to the
// settings left unset: data sources may reach loopback, where a developer's
// database or object store usually runs.
func (c *Config) SingleMachine() {
	if !c.sourceAllowLoopbackSet {
		c.SourceAllowLoopback = true
	}
}

// SourceGuard is the network guard's configuration for data sources
// (databases, buckets, warehouses): any port, loopback and the networks
// as configured, the system resolver.
func (c *Config) SourceGuard() netguard.Options {
	return netguard.Options{
		AllowLoopback: c.SourceAllowLoopback,
		Allow:         slices.Clone(c.SourceAllowNetworks),
	}
}

// Defaults is the configuration with no environment set.
func Defaults() *Config {
	c, err := Load(func(string) string { return "" })
	if err != nil {
		panic("config: defaults do not parse: " + err.Error())
	}
	return c
}

// PrintHelp writes the table of settings, their defaults and meaning.
func PrintHelp(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tDEFAULT\tMEANING")
	for _, s := range settings {
		def := s.def
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.name, def, s.help)
	}
	tw.Flush()
}

// Names lists every setting's variable name (for tests and docs).
func Names() []string {
	out := make([]string, len(settings))
	for i, s := range settings {
		out[i] = s.name
	}
	return out
}

// Getenv is os.Getenv, named for Load's callers.
var Getenv = os.Getenv
