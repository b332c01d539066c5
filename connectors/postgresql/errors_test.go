package postgresql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/dqs/dqs/connectors"
)

const secret = "S3cret-'Pa ss\\w0rd!"

func TestInvalidCredentials(t *testing.T) {
	base := connectors.Credentials{"host": "db.example", "database": "d", "username": "u", "password": secret}
	with := func(k, v string) connectors.Credentials {
		c := connectors.Credentials{}
		for kk, vv := range base {
			c[kk] = vv
		}
		if v == "<unset>" {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	cases := map[string]connectors.Credentials{
		"no host":       with("host", "<unset>"),
		"two hosts":     with("host", "a,b"),
		"socket":        with("host", "/var/run/postgresql"),
		"port 0":        with("port", "0"),
		"port too big":  with("port", "65536"),
		"port not num":  with("port", "54x"),
		"no database":   with("database", " "),
		"no username":   with("username", "<unset>"),
		"bad sslmode":   with("sslmode", "sometimes"),
		"host with key": with("host", "h' password='x"),
	}
	for name, c := range cases {
		_, err := Open(context.Background(), connectors.Options{Credentials: c, Dialer: &net.Dialer{}})
		if !errors.Is(err, connectors.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		} else if strings.Contains(err.Error(), "w0rd") {
			t.Errorf("%s: message holds the password: %v", name, err)
		}
	}
	if _, err := Open(context.Background(), connectors.Options{Credentials: base}); !errors.Is(err, connectors.ErrInvalid) {
		t.Errorf("no dialer: %v, want ErrInvalid", err)
	}
	// Defaults.
	s, err := newSource(connectors.Options{Credentials: base, Dialer: &net.Dialer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.schema != "public" || s.cfg.Port != 5432 || s.timeout != connectors.DefaultTimeout || s.cfg.Password != secret || s.cfg.TLSConfig == nil || len(s.cfg.Fallbacks) != 1 {
		t.Errorf("defaults: schema %q port %d timeout %v password kept %v sslmode prefer %v",
			s.schema, s.cfg.Port, s.timeout, s.cfg.Password == secret, s.cfg.TLSConfig != nil && len(s.cfg.Fallbacks) == 1)
	}
}

// recordingDialer records the addresses it is asked for.
type recordingDialer struct {
	net.Dialer
	addrs chan string
}

func (d *recordingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	select {
	case d.addrs <- addr:
	default:
	}
	return d.Dialer.DialContext(ctx, network, addr)
}

func TestDialsThroughTheDialerUnresolved(t *testing.T) {
	srv := testServer(t)
	opts := srv.options("public")
	opts.Credentials["host"] = "localhost"
	d := &recordingDialer{addrs: make(chan string, 10)}
	opts.Dialer = d
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Skipf("localhost does not reach the test server: %v", err)
	}
	s.Close()
	if a := <-d.addrs; a != net.JoinHostPort("localhost", strconv.Itoa(int(srv.cfg.Port))) {
		t.Errorf("dialer asked for %q, want the host name unresolved", a)
	}
}

func TestWrongCredentials(t *testing.T) {
	srv := testServer(t)
	opts := srv.options("public")
	opts.Credentials["username"] = "dqs_no_such_role"
	opts.Credentials["password"] = secret
	_, err := Open(context.Background(), opts)
	if !errors.Is(err, connectors.ErrConnect) {
		t.Fatalf("unknown role: %v, want ErrConnect", err)
	}
	if !strings.Contains(err.Error(), "refused the username or password") || strings.Contains(err.Error(), "w0rd") {
		t.Errorf("unknown role: %q", err)
	}
	opts = srv.options("public")
	opts.Credentials["database"] = "dqs_no_such_database"
	if _, err := Open(context.Background(), opts); !errors.Is(err, connectors.ErrConnect) || !strings.Contains(err.Error(), "no such database") {
		t.Errorf("unknown database: %v", err)
	}
}

// fakeServer accepts connections on a local port and serves each with
// serve.
func fakeServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return l.Addr().String()
}

// TestPasswordNeverInMessages has a server refuse the password with a
// message echoing it; the error must not show it.
func TestPasswordNeverInMessages(t *testing.T) {
	addr := fakeServer(t, func(c net.Conn) {
		be := pgproto3.NewBackend(c, c)
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return
		}
		if _, ok := msg.(*pgproto3.SSLRequest); ok {
			c.Write([]byte{'N'})
			if _, err := be.ReceiveStartupMessage(); err != nil {
				return
			}
		}
		be.Send(&pgproto3.AuthenticationCleartextPassword{})
		be.Flush()
		be.SetAuthType(pgproto3.AuthTypeCleartextPassword)
		pw, err := be.Receive()
		if err != nil {
			return
		}
		got := ""
		if p, ok := pw.(*pgproto3.PasswordMessage); ok {
			got = p.Password
		}
		be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "28P01",
			Message: "password authentication failed for user \"u\" with password " + got})
		be.Flush()
	})
	host, port, _ := net.SplitHostPort(addr)
	for _, sslmode := range []string{"disable", "prefer"} {
		_, err := Open(context.Background(), connectors.Options{
			Credentials: connectors.Credentials{"host": host, "port": port, "database": "d", "username": "u", "password": secret, "sslmode": sslmode},
			Dialer:      &net.Dialer{},
			Timeout:     5 * time.Second,
		})
		if !errors.Is(err, connectors.ErrConnect) {
			t.Fatalf("sslmode %s: %v, want ErrConnect", sslmode, err)
		}
		if strings.Contains(err.Error(), "w0rd") || !strings.Contains(err.Error(), "refused the username or password") {
			t.Errorf("sslmode %s: message %q", sslmode, err)
		}
		// The cause is kept for errors.As, its text not shown.
		var cause interface{ SQLState() string }
		if !errors.As(err, &cause) || cause.SQLState() != "28P01" {
			t.Errorf("sslmode %s: cause lost: %#v", sslmode, err)
		}
	}
}

// blackHole is a dialer for which one address never answers, as a
// filtered port.
type blackHole struct {
	net.Dialer
	addr string
}

func (d *blackHole) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == d.addr {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return d.Dialer.DialContext(ctx, network, addr)
}

// TestUnreachableReadsTheSame: a closed port, a filtered one and a server
// speaking something else give the same message.
func TestUnreachableReadsTheSame(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	notPG := fakeServer(t, func(c net.Conn) {
		c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
	})
	silent := fakeServer(t, func(c net.Conn) { time.Sleep(5 * time.Second) })
	filtered := "127.0.0.1:9"

	msgs := map[string]string{}
	for name, addr := range map[string]string{"closed": closed, "not postgresql": notPG, "filtered": filtered, "silent": silent} {
		host, port, _ := net.SplitHostPort(addr)
		start := time.Now()
		_, err := Open(context.Background(), connectors.Options{
			Credentials: connectors.Credentials{"host": host, "port": port, "database": "d", "username": "u", "password": secret},
			Dialer:      &blackHole{addr: filtered},
			Timeout:     700 * time.Millisecond,
		})
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
		if !errors.Is(err, connectors.ErrConnect) {
			t.Errorf("%s: %v, want ErrConnect", name, err)
			continue
		}
		if strings.Contains(err.Error(), "w0rd") {
			t.Errorf("%s: password in %q", name, err)
		}
		msgs[name] = strings.ReplaceAll(err.Error(), addr, "ADDR")
	}
	want := msgs["closed"]
	for name, m := range msgs {
		if m != want {
			t.Errorf("%s: %q, closed port: %q", name, m, want)
		}
	}
	t.Logf("message: %s", want)
}

func TestMissingTable(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	src := srv.open(t, schema, nil)
	if _, err := src.Profile(context.Background(), "nope", nil); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("Profile: %v", err)
	}
	if _, err := src.Sample(context.Background(), "nope", 5); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("Sample: %v", err)
	}
	// A sequence, an index are no tables.
	srv.exec(t, "CREATE SEQUENCE "+pgx.Identifier{schema, "seq"}.Sanitize())
	if _, err := src.Profile(context.Background(), "seq", nil); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("Profile of a sequence: %v", err)
	}
	// A schema that does not exist.
	other := srv.open(t, "ct_no_such_schema", nil)
	if _, err := other.Sample(context.Background(), "t", 5); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("Sample in a missing schema: %v", err)
	}
}

func TestTableDroppedMidScan(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	name := pgx.Identifier{schema, "doomed"}.Sanitize()
	srv.exec(t, "CREATE TABLE "+name+" AS SELECT g AS id FROM generate_series(1, 1000) g")
	tr := &tracer{}
	tr.onEnd = func(sql string) {
		if strings.HasPrefix(sql, "SELECT ARRAY[") {
			srv.exec(t, "DROP TABLE "+name)
		}
	}
	src := srv.open(t, schema, func(c *pgx.ConnConfig) { c.Tracer = tr })
	_, err := src.Profile(context.Background(), "doomed", nil)
	if !errors.Is(err, connectors.ErrNotFound) {
		t.Fatalf("table dropped between the aggregate queries: %v, want ErrNotFound", err)
	}
	// The connection is still good.
	if _, err := src.List(context.Background()); err != nil {
		t.Errorf("List after: %v", err)
	}
}

func TestCancelStopsTheQuery(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	srv.exec(t, "CREATE VIEW "+pgx.Identifier{schema, "slow"}.Sanitize()+" AS SELECT pg_sleep(30)::text AS x")
	src := srv.open(t, schema, nil)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := src.Profile(ctx, "slow", nil)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancelled Profile returned after %v", d)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Profile: %v, want context.Canceled", err)
	}
	// The server stopped the query (a cancel request, not just a closed
	// socket).
	deadline := time.Now().Add(3 * time.Second)
	for {
		var n int
		err := srv.admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'dqs' AND state = 'active' AND query LIKE '%slow%'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server still runs the cancelled query")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := src.List(context.Background()); err != nil {
		t.Errorf("List after a cancelled Profile: %v", err)
	}

	// The profile timeout, not the call timeout, bounds Profile and
	// Sample: past it, by our deadline or the server's statement_timeout,
	// the error is ErrTimedOut (final), not a connection failure.
	srv.exec(t, "CREATE VIEW "+pgx.Identifier{schema, "a_while"}.Sanitize()+" AS SELECT pg_sleep(1.2)::text AS x")
	opts := srv.options(schema)
	opts.Timeout, opts.ProfileTimeout = time.Second, 10*time.Second
	patient, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer patient.Close()
	if _, err := patient.Profile(context.Background(), "a_while", nil); err != nil {
		t.Errorf("Profile longer than the call timeout, within the profile timeout: %v", err)
	}
	if _, err := patient.List(context.Background()); err != nil {
		t.Errorf("List: %v", err)
	}

	opts.ProfileTimeout = time.Second
	short, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer short.Close()
	server := srv.open(t, schema, func(c *pgx.ConnConfig) { c.RuntimeParams["statement_timeout"] = "500" })
	for name, src := range map[string]*Source{"our deadline": short, "statement_timeout": server} {
		start = time.Now()
		_, err = src.Profile(context.Background(), "slow", nil)
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("%s: timed-out Profile returned after %v", name, d)
		}
		if !errors.Is(err, connectors.ErrTimedOut) || errors.Is(err, connectors.ErrConnect) || !strings.Contains(fmt.Sprint(err), "could not be profiled within") {
			t.Errorf("%s: timed-out Profile: %v, want ErrTimedOut", name, err)
		}
		r, err := src.Sample(context.Background(), "slow", 10)
		if err == nil {
			_, err = r.Next()
			r.Close()
		}
		if !errors.Is(err, connectors.ErrTimedOut) || !strings.Contains(fmt.Sprint(err), "could not be sampled within") {
			t.Errorf("%s: timed-out Sample: %v, want ErrTimedOut", name, err)
		}
		if _, err := src.List(context.Background()); err != nil {
			t.Errorf("%s: List after a timed-out Profile: %v", name, err)
		}
	}
}
