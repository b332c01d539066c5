// Package postgresql is the PostgreSQL table source: it lists a schema's
// tables from the catalogue, profiles a table where it lives in at most
// two aggregate queries, and samples rows for the classifier.
//
// # Connecting
//
// Credentials (connectors.Credentials): host, port (default 5432),
// database, username, password, sslmode (default "prefer", libpq's: TLS
// when the server offers it, plain otherwise; "disable", "allow",
// "require", "verify-ca" and "verify-full" as libpq reads them). The
// schema is Options.Schema, "public" when empty. Every connection,
// including the cancel requests of an interrupted query, is dialled by
// Options.Dialer with the host name unresolved (the guard resolves and
// checks it). Neither a password file nor the PG* environment variables
// override what the credentials give (the environment of the worker may
// still supply what they do not name, as PGSSLROOTCERT). Sessions are
// read-only (default_transaction_read_only), in UTC with ISO dates, and
// carry a statement_timeout equal to the longer of the call timeout
// (Options.Timeout: connecting, List, the catalogue) and the profile
// timeout (Options.ProfileTimeout: Profile's aggregate queries, a Sample
// until it is closed), so that the server stops a query whose client went
// away. They also turn JIT off and allow
// 2 parallel workers a query (max_parallel_workers_per_gather, PostgreSQL's
// default, whatever the server or role sets; the server's
// max_parallel_workers still bounds them): see Cost, below.
// Both are settings any user may change; the connector needs PostgreSQL
// 12 or later (MATERIALIZED common table expressions).
//
// # Profile
//
// Profile sends three queries (TableProfile.Queries counts them, the
// catalogue one included): one to the catalogue (the table's columns and
// types, pg_stats' n_distinct), then two aggregate queries, the second
// left out for an empty table:
//
//  1. One pass over the whole table, for the figures it reports exactly:
//     count(*) and, per column, the non-null values (so nulls), blank
//     text values (only spaces, tabs or line breaks), and min and max of
//     numbers, dates, times, intervals, network addresses and enums in
//     their own order (booleans false < true; NaN and infinities are no
//     numbers, as in the file engine).
//  2. Over a sample of about SampleRows(columns) rows (SampleTarget,
//     100,000, fewer for tables wider than 20 columns so that the sample
//     holds at most 2,000,000 values; the whole table when it holds no
//     more, and exact then), kept once and read twice: the sampled values
//     of each column pg_stats has no n_distinct for are unpivoted to
//     (column, text) rows, grouped by column and text for the number of
//     distinct values seen, of values seen once (f1) and of non-null
//     values sampled; and each column's own figures: a numeric column's
//     mean and sample standard deviation (float8 arithmetic) and lower
//     quantiles p01 p05 p25 p50 p75 p95 p99 (percentile_disc: the value at
//     rank ceil(q·n), as the file engine defines them), a text column's
//     min and max non-blank values (byte order, "C" collation, as the file
//     engine), and for a column given a format the share of its non-blank
//     values matching it (a PostgreSQL regular expression passed as a bind
//     parameter). The query returns a row per column. The sample is
//     TABLESAMPLE SYSTEM (SamplePercent) REPEATABLE (SampleSeed) for
//     tables, partitioned tables and materialized views, and a random()
//     filter for views (which cannot be sampled by page and are then
//     evaluated whole). Distinct values are told apart by their text
//     (numeric 1.0 and 1.00 are two).
//
// Each column's ColumnMetrics.Estimated names the figures of it that are
// estimates (distinct, and those of the sample: min and max of text, mean,
// stddev, median, quantiles, format_conformance); it is empty when the
// sample was the whole table.
//
// Sampled mode (connectors.Options.SampledProfile, source config
// profile_mode "sampled"): query 1 is count(*) alone, and query 2 also
// computes, over the same sample, what query 1 computes in the exact mode
// (countPlan: non-null values, blanks, min and max, true values), returned
// in the first column's row; nulls and blanks are the sample's scaled to
// the table's rows (rounded), min and max the sample's, and Estimated adds
// nulls, empty (text columns), min and max. On a table of at most
// SampleRows rows the sample is the whole table and every figure stays
// exact. The profile then costs a count(*) and the sample pass: about 2x
// the count(*) alone on the benchmark table.
//
// Cost. The full pass reads every row once and is CPU-bound: PostgreSQL
// deforms each row up to its last column (count(*) never does) and spends
// per row one transition per aggregate and one call per FILTER, far more
// than reading the row. So the pass holds only counts and extremes, each
// with the fewest of them (fullPass lists them), and every figure a
// sample estimates well moved to the sample pass, where it costs the
// same per value on about 1% of the rows of a 10-million-row table: the
// format's regular expression (about a microsecond a value, PostgreSQL's
// dearest operation here, half the time of all the other figures over a
// whole table), the mean and deviation (a float8_accum or numeric state a
// value), and text min and max over non-blank values (two FILTERs and two
// text comparisons a value; the scan shows them but measures nothing on
// them, and drops them for personal columns). On the 12-column benchmark
// table (cmd/dqs-scanbench, docs/bench-scan.md) this took the profile
// from 32–44 times a count(*) to the figures recorded there. The full
// pass runs as a parallel aggregate (every aggregate in it is parallel
// safe), except past 1600 aggregates (about 530 integer columns): a
// parallel plan passes each partial state as a column, and a row holds at
// most 1664. JIT is off: it would save about a fifth of the pass on the
// 12-column benchmark table, but every process of the query compiles the
// whole expression again, in time that grows with the width: 56 s with
// JIT against 10 s without for 200,000 rows of 400 integer columns. Min
// and max run on the native values, whose results alone are cast to text.
// The sample pass costs a few microseconds per sampled row (0.35 s for the
// benchmark table's 100,000), whatever the table's size; grouping for distinct values, the dearest part
// (543,000 groups for the benchmark table: a second, spilled to disk past
// the default work_mem), is left out for the columns an ANALYZE has
// estimated.
//
// Precision. Exact: rows, nulls, blanks, and min and max of every type but
// text. Exact too, on tables of at most SampleRows rows (the sample is the
// whole table): every other figure (mean and deviation in float8 sums,
// exact to about 1e-12 relative). Past that, estimates from the sample
// (Estimated names them). SYSTEM sampling reads whole pages at random,
// about pages·SampleRows/rows of them (1,620 of the benchmark table's
// 160,000): its precision is that of that many draws, less when equal or
// ordered values are stored together.
//
//   - Quantiles and the median: rank error about 0.5/sqrt(pages read) at
//     the median: under 1% for columns whose order does not follow the
//     physical order, about 1.5% (3% at worst in practice) for a column
//     stored in its own order, with ~100 rows a page
//     (TestProfileMillionRows measures it).
//   - Mean: standard error about sd/sqrt(values sampled) for values
//     scattered over the pages, up to sd/sqrt(pages read) for a column
//     stored in its own order (0.04 sd for the 640 pages read of a
//     million rows in 6,400, which TestProfileMillionRows bounds at 0.15
//     sd); the standard deviation within a few percent likewise.
//   - Format conformance: a share p of the sampled non-blank values, with
//     a standard error of sqrt(p(1-p)/values sampled) for values scattered
//     over the pages (under 0.2 percentage point for 100,000 values) and
//     up to sqrt(p(1-p)/pages read) when conforming values are stored
//     together; non-conforming values rarer than about one in the number
//     of values sampled may be missed altogether.
//   - Text min and max: values of the table, the smallest and largest
//     non-blank ones of the sample: the table's min is at most the
//     reported one, its max at least. With values scattered over the
//     pages, the reported min is among the table's lowest 3/pages-read
//     share of values (0.2% for the benchmark table) with 95% probability;
//     a single outlier, such as a stray leading space, is found only if
//     its page is read.
//
// Distinct counts are exact on tables of at most SampleRows rows. Past
// that they come from pg_stats.n_distinct when the table has been analysed
// (ANALYZE's estimate, its sign read as PostgreSQL documents: negative is
// a fraction of the rows, scaled to the current row count), and otherwise
// from the sample with the Haas–Stokes Duj1 estimator ANALYZE itself uses,
// D = n·d / (n − f1 + f1·n/N), where n are the sampled non-null values, d
// the distinct ones among them, f1 those seen once and N the table's
// non-null values: a column unique in the sample is unique in the table.
// The sample's estimate is clamped to [d, N], pg_stats' to [0, N]. Duj1
// is within a few percent for columns with few values or nearly unique
// ones and may be off by up to about a factor of two in between, and more
// when equal values are stored together (page sampling sees them
// together); pg_stats shares ANALYZE's precision and its staleness.
//
// SampleSeed is fixed: the pages a table's sample reads are random but the
// same from one profile to the next while the table is unchanged, so that
// two scans of an unchanged table report the same estimates, and trends
// between scans are the table's, not the sample's.
//
// # Sample
//
// Sample sends one query: SELECT * with TABLESAMPLE SYSTEM at a rate the
// catalogue (pg_class, every partition for a partitioned table) says reads
// about three times limit rows (at least 64 pages, so small tables are
// read whole), of which ORDER BY random() LIMIT keeps limit at random.
// Rows stream from the server as they are read. Views cannot be sampled
// by page: a view's sample is its first limit rows, in a second query
// after the first is refused. Values are the server's text output (UTC,
// ISO dates); booleans read true and false.
//
// # Errors
//
// A missing table or schema (or one dropped between two queries) wraps
// connectors.ErrNotFound; incomplete or malformed credentials
// connectors.ErrInvalid (so does a format PostgreSQL cannot read as a
// regular expression); refused credentials, an unknown database, a server
// that does not answer or answers something else within the timeout, a
// connection lost mid-query wrap connectors.ErrConnect, and the message of
// the last kinds is the same whether the port is closed, filtered or not
// speaking PostgreSQL. A cancelled context's error wraps context.Canceled.
// A Profile's aggregate query or a Sample stopped at the profile timeout,
// by the context (a cancel request) or by the server's statement_timeout,
// wraps connectors.ErrTimedOut (made by connectors.TimedOut: "could not be
// profiled within 1h0m0s"), which a retry would not mend.
// No message carries a driver's text, except PostgreSQL's own message for
// a failed query, scrubbed of the password (connectors.ScrubString).
package postgresql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/dqs/dqs/connectors"
)

// Defaults of the credentials.
const (
	DefaultPort    = 5432
	DefaultSSLMode = "prefer"
	DefaultSchema  = "public"
)

// SampleTarget is the number of rows Profile's second query reads (its
// quantiles and distinct counts) from a table of up to 20 columns (see
// SampleRows); a table of at most that many rows is read whole. A variable
// for tests and benchmarks; set it before profiling, not during.
var SampleTarget int64 = 100_000

// maxColumns is connectors.MaxColumns, lowered by tests (PostgreSQL has at
// most 1600 columns).
var maxColumns = connectors.MaxColumns

// idleConns is how many connections a Source keeps open between calls.
const idleConns = 2

// parallelWorkers is the session's max_parallel_workers_per_gather: the
// most workers a parallel scan (Profile's full pass) may start besides
// the leader. It is PostgreSQL's default, set so that a server or role
// configured lower still runs the pass in parallel; more is not asked of
// a server that also serves others (on the 2-core bench machine, 4
// workers took as long as 2 and a third more CPU).
const parallelWorkers = 2

var sslModes = map[string]bool{
	"disable": true, "allow": true, "prefer": true,
	"require": true, "verify-ca": true, "verify-full": true,
}

// Source is a PostgreSQL schema. It is safe for concurrent use: each call
// takes a connection of its own (reusing idle ones), a Sample's reader
// until it is closed.
type Source struct {
	cfg     *pgx.ConnConfig
	schema  string
	timeout time.Duration // a connection, a catalogue query
	// readTimeout bounds Profile's aggregate queries and a Sample
	// (connectors.Options.ProfileTimeout).
	readTimeout time.Duration
	// sampled: Profile counts the rows and samples the rest
	// (connectors.Options.SampledProfile).
	sampled bool
	secrets []string
	addr    string // host:port, for messages

	mu     sync.Mutex
	idle   []*pgx.Conn
	closed bool
}

var _ connectors.TableSource = (*Source)(nil)

// Open checks the credentials and connects once, so that a source that
// opens is reachable with them.
func Open(ctx context.Context, opts connectors.Options) (*Source, error) {
	return open(ctx, opts, nil)
}

// open is Open with a hook to adjust the connection config (tests set a
// tracer).
func open(ctx context.Context, opts connectors.Options, tune func(*pgx.ConnConfig)) (*Source, error) {
	s, err := newSource(opts)
	if err != nil {
		return nil, err
	}
	if tune != nil {
		tune(s.cfg)
	}
	conn, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	s.release(conn)
	return s, nil
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: postgresql: %s", connectors.ErrInvalid, fmt.Sprintf(format, a...))
}

// newSource validates the options and builds the connection config.
func newSource(opts connectors.Options) (*Source, error) {
	c := opts.Credentials
	host := strings.TrimSpace(c["host"])
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	switch {
	case host == "":
		return nil, invalid("host is required")
	case len(host) > 253 || strings.ContainsAny(host, ",/\\@ \t\r\n'\"") || strings.ContainsFunc(host, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return nil, invalid("host must be a host name or an IP address")
	}
	port := DefaultPort
	if p := strings.TrimSpace(c["port"]); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, invalid("port must be a number from 1 to 65535")
		}
		port = n
	}
	database, user := c["database"], c["username"]
	if strings.TrimSpace(database) == "" {
		return nil, invalid("database is required")
	}
	if strings.TrimSpace(user) == "" {
		return nil, invalid("username is required")
	}
	if strings.ContainsRune(database+user+c["password"], 0) {
		return nil, invalid("database, username and password cannot hold a NUL character")
	}
	sslmode := strings.TrimSpace(c["sslmode"])
	if sslmode == "" {
		sslmode = DefaultSSLMode
	}
	if !sslModes[sslmode] {
		return nil, invalid("sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full")
	}
	if opts.Dialer == nil {
		return nil, invalid("no dialer")
	}
	timeout, readTimeout := opts.CallTimeout(), opts.ProfileCallTimeout()
	schema := opts.Schema
	if schema == "" {
		schema = DefaultSchema
	}

	// The keyword/value DSN names only what the credentials give, each
	// value quoted; ConnStringAllowedKeys makes pgconn refuse anything
	// else before it reads a file.
	dsn := fmt.Sprintf("host=%s port=%d dbname=%s user=%s sslmode=%s",
		quote(host), port, quote(database), quote(user), sslmode)
	cfg, err := pgx.ParseConfigWithOptions(dsn, pgx.ParseConfigOptions{
		ParseConfigOptions: pgconn.ParseConfigOptions{
			ConnStringAllowedKeys: []string{"host", "port", "dbname", "user", "sslmode"},
		},
	})
	if err != nil {
		// pgconn's message quotes the DSN (without a password, which it
		// never holds); ours names no value.
		return nil, invalid("the settings do not make a connection string")
	}
	// The password is set here, never read from a password file.
	cfg.Password = c["password"]
	cfg.Host, cfg.Port = host, uint16(port)
	for _, fb := range cfg.Fallbacks {
		fb.Host, fb.Port = host, uint16(port)
	}
	cfg.ConnectTimeout = timeout
	cfg.DialFunc = opts.Dialer.DialContext
	// No resolution here: the dialer receives host:port, resolves it and
	// checks every address it would connect to.
	cfg.LookupFunc = func(ctx context.Context, host string) ([]string, error) {
		return []string{host}, nil
	}
	cfg.ValidateConnect = nil
	cfg.KerberosSrvName, cfg.KerberosSpn = "", ""
	cfg.RuntimeParams = map[string]string{
		"application_name":              "dqs",
		"default_transaction_read_only": "on",
		"statement_timeout":             strconv.FormatInt(max(1, timeout.Milliseconds(), readTimeout.Milliseconds()), 10),
		"TimeZone":                      "UTC",
		"DateStyle":                     "ISO, YMD",
		"IntervalStyle":                 "postgres",
		"extra_float_digits":            "3",
		// No JIT: Profile's queries hold hundreds of expressions, and JIT
		// compiles them again in every process of a parallel query, in
		// time that grows with the width, not the rows (see Cost in the
		// package doc).
		"jit": "off",
		// Profile's full pass is a parallel aggregate (the server's
		// max_parallel_workers and max_worker_processes still bound it).
		"max_parallel_workers_per_gather": strconv.Itoa(parallelWorkers),
	}
	// A cancelled context sends the server a cancel request (through the
	// dialer) so that it stops the query, then, should the server not
	// answer, closes the connection.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: time.Second}
	}
	// Every query is sent once: text results, no prepared statements
	// cached on the server.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	cfg.StatementCacheCapacity = 0
	cfg.DescriptionCacheCapacity = 0

	return &Source{
		cfg:         cfg,
		schema:      schema,
		timeout:     timeout,
		readTimeout: readTimeout,
		sampled:     opts.SampledProfile,
		secrets:     []string{c["password"], dsn},
		addr:        net.JoinHostPort(host, strconv.Itoa(port)),
	}, nil
}

// quote quotes a keyword/value DSN value.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// Schema is the schema the source lists.
func (s *Source) Schema() string { return s.schema }

// acquire returns an idle connection or opens one.
func (s *Source) acquire(ctx context.Context) (*pgx.Conn, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("postgresql: source closed")
	}
	for len(s.idle) > 0 {
		c := s.idle[len(s.idle)-1]
		s.idle = s.idle[:len(s.idle)-1]
		if !c.IsClosed() {
			s.mu.Unlock()
			return c, nil
		}
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return nil, s.connectError(ctx, err)
	}
	return conn, nil
}

// release returns a connection to the idle ones, or closes it.
func (s *Source) release(conn *pgx.Conn) {
	if conn == nil || conn.IsClosed() {
		return
	}
	// A connection left in a transaction or a failed state is not
	// reused.
	if conn.PgConn().TxStatus() != 'I' || conn.PgConn().IsBusy() {
		closeConn(conn)
		return
	}
	s.mu.Lock()
	if !s.closed && len(s.idle) < idleConns {
		s.idle = append(s.idle, conn)
		conn = nil
	}
	s.mu.Unlock()
	if conn != nil {
		closeConn(conn)
	}
}

func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn.Close(ctx)
}

// Close closes the idle connections; a Sample reader still open closes
// its own when it is closed.
func (s *Source) Close() error {
	s.mu.Lock()
	idle := s.idle
	s.idle, s.closed = nil, true
	s.mu.Unlock()
	for _, c := range idle {
		closeConn(c)
	}
	return nil
}

// connectError is an error a connection attempt ends with: its message
// says what the user can act on and nothing a probe could tell apart (a
// closed port, a filtered one, a server speaking something else), and
// it wraps ErrConnect and the cause (errors.Is finds a guard's refusal or
// a deadline), whose message it does not show.
type connectError struct {
	msg   string
	cause error
}

func (e *connectError) Error() string   { return e.msg }
func (e *connectError) Unwrap() []error { return []error{connectors.ErrConnect, e.cause} }

func (s *Source) connectError(ctx context.Context, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "28"): // invalid_authorization_specification, invalid_password
			return &connectError{msg: fmt.Sprintf("%v: postgresql at %s refused the username or password", connectors.ErrConnect, s.addr), cause: err}
		case pgErr.Code == "3D000": // invalid_catalog_name
			return &connectError{msg: fmt.Sprintf("%v: postgresql at %s has no such database", connectors.ErrConnect, s.addr), cause: err}
		}
	}
	if ctx.Err() == context.Canceled {
		return fmt.Errorf("postgresql: connect: %w", context.Canceled)
	}
	return &connectError{
		msg:   fmt.Sprintf("%v: no postgresql server answered at %s within %s", connectors.ErrConnect, s.addr, s.timeout),
		cause: err,
	}
}

// queryError maps an error of a query on table (empty for the catalogue)
// to the connector's kinds, with a message holding no driver text that
// could echo a credential.
func (s *Source) queryError(ctx context.Context, table string, err error) error {
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "42P01", "3F000": // undefined_table, invalid_schema_name
			return fmt.Errorf("%w: postgresql table %q in schema %q", connectors.ErrNotFound, table, s.schema)
		case "2201B": // invalid_regular_expression
			return fmt.Errorf("%w: postgresql cannot read a format of table %q as a regular expression: %s",
				connectors.ErrInvalid, table, connectors.ScrubString(pgErr.Message, s.secrets...))
		case "57014": // query_canceled
			if cerr := ctx.Err(); cerr != nil {
				return s.ctxError(ctx, table)
			}
			// statement_timeout: the server gave up at the call timeout.
			return &connectError{
				msg:   fmt.Sprintf("%v: postgresql at %s did not answer within %s", connectors.ErrConnect, s.addr, s.timeout),
				cause: context.DeadlineExceeded,
			}
		}
		if strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P") || strings.HasPrefix(pgErr.Code, "28") {
			return &connectError{msg: fmt.Sprintf("%v: postgresql at %s closed the connection", connectors.ErrConnect, s.addr), cause: err}
		}
		return fmt.Errorf("postgresql: query on %q failed: %s (SQLSTATE %s)", table,
			connectors.ScrubString(pgErr.Message, s.secrets...), pgErr.Code)
	}
	if ctx.Err() != nil {
		return s.ctxError(ctx, table)
	}
	// A broken connection, a protocol error.
	return &connectError{msg: fmt.Sprintf("%v: the connection to postgresql at %s failed during a query", connectors.ErrConnect, s.addr), cause: err}
}

// readContext bounds one of Profile's aggregate queries, or a Sample, by
// the profile timeout (not the call timeout: they read the table).
func (s *Source) readContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return connectors.ProfileContext(ctx, s.readTimeout)
}

// readError is queryError for a query under readContext, of which what
// says what it did ("profiled", "sampled"): a statement stopped at the
// profile timeout, by our deadline (a cancel request, or the connection
// closed when that went unanswered) or by the server's statement_timeout
// (the same bound, for a client that went away), is ErrTimedOut, final.
// The caller's own deadline or cancellation is not ours, and reads as
// queryError has it.
func (s *Source) readError(ctx context.Context, table, what string, err error) error {
	if err != nil && timedOut(ctx, err) {
		return connectors.TimedOut(fmt.Sprintf("postgresql table %q could not be %s", table, what), s.readTimeout)
	}
	return s.queryError(ctx, table, err)
}

func timedOut(ctx context.Context, err error) bool {
	if connectors.ProfileTimedOut(ctx) {
		return true
	}
	var pgErr *pgconn.PgError
	return ctx.Err() == nil && errors.As(err, &pgErr) && pgErr.Code == "57014" // query_canceled
}

// ctxError is the error of a call whose context ended: a deadline is a
// connection failure (the source did not answer in time), a cancellation
// the caller's.
func (s *Source) ctxError(ctx context.Context, table string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &connectError{
			msg:   fmt.Sprintf("%v: postgresql at %s did not answer within %s", connectors.ErrConnect, s.addr, s.timeout),
			cause: context.DeadlineExceeded,
		}
	}
	return fmt.Errorf("postgresql: query on %q: %w", table, ctx.Err())
}
