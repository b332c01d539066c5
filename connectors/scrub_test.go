package connectors_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/models/modelstest"
)

const secret = "p@ss w'rd/\\s3cr3t"

func TestScrubForms(t *testing.T) {
	pem := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----"
	cases := []struct{ in, secret, want string }{
		{"auth failed for " + secret, secret, "auth failed for [redacted]"},
		{"query " + url.QueryEscape(secret), secret, "query [redacted]"},
		{"path " + url.PathEscape(secret), secret, "path [redacted]"},
		{`dsn password='p@ss w\'rd/\\s3cr3t' failed`, secret, "dsn password=[redacted] failed"},
		{"bad key " + pem + " here", pem, "bad key [redacted] here"},
		{"bad key line MIIEvQIBADANBgkqhkiG9w0BAQEFAASC seen", pem, "bad key line [redacted] seen"},
		// Credential-looking parts, whatever their value.
		{"connect https://user:hunter2@host/x", "", "connect https://user:[redacted]@host/x"},
		{`config password="x y" and secret_access_key=AKIA/123`, "", "config password=[redacted] and secret_access_key=[redacted]"},
		{"key -----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY----- end", "", "key [redacted] end"},
		// What is left of a DSN drops the whole message.
		{"cannot parse postgres://user@host/db", "", "[redacted]"},
		{"failed: host=db user=admin dbname=x", "", "[redacted]"},
		{"nothing to hide", "other", "nothing to hide"},
	}
	for _, c := range cases {
		var secrets []string
		if c.secret != "" {
			secrets = append(secrets, c.secret)
		}
		err := connectors.Scrub(errors.New(c.in), secrets...)
		if err.Error() != c.want {
			t.Errorf("Scrub(%q) = %q, want %q", c.in, err.Error(), c.want)
		}
	}
	if connectors.Scrub(nil, "x") != nil {
		t.Error("Scrub(nil) is not nil")
	}
	plain := errors.New("plain")
	if connectors.Scrub(plain, "") != plain {
		t.Error("Scrub changed an error with nothing to scrub")
	}
	wrapped := connectors.Scrub(fmt.Errorf("%w: as %s", connectors.ErrConnect, secret), secret)
	if !errors.Is(wrapped, connectors.ErrConnect) || strings.Contains(wrapped.Error(), "s3cr3t") {
		t.Errorf("scrubbed error %q lost its kind or kept the secret", wrapped)
	}
}

// testURL is the test PostgreSQL (modelstest's), with a user and a
// password of ours.
func testURL(t *testing.T, user, password string) *url.URL {
	t.Helper()
	base := modelstest.PostgresURL()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		if modelstest.RequirePostgres() {
			t.Fatalf("PostgreSQL at DQS_TEST_POSTGRES_URL is unreachable and DQS_REQUIRE_POSTGRES=1: %v", err)
		}
		t.Skipf("skipping the PostgreSQL run: server unreachable (%v); set DQS_TEST_POSTGRES_URL or DQS_REQUIRE_POSTGRES=1 to make this fail", err)
	}
	conn.Close(ctx)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(user, password)
	return u
}

// TestScrubPgxErrors scrubs real pgx errors: refused credentials, an
// unreachable server, a connection string that does not parse.
func TestScrubPgxErrors(t *testing.T) {
	u := testURL(t, "dqs_no_such_role", secret)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	unreachable := *u
	unreachable.Host = fmt.Sprintf("127.0.0.1:%d", closedPort)

	dsns := map[string]string{
		"wrong credentials": u.String(),
		"unreachable":       unreachable.String(),
		"bad port":          strings.Replace(u.String(), u.Host, "127.0.0.1:99999", 1),
		"keyword dsn":       fmt.Sprintf("host=127.0.0.1 port=%d user=u password='%s' dbname=d connect_timeout=2", closedPort, strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(secret)),
	}
	for name, dsn := range dsns {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, dsn)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			t.Errorf("%s: connected", name)
			continue
		}
		scrubbed := connectors.Scrub(err, secret, dsn)
		for _, form := range []string{secret, "s3cr3t", url.QueryEscape(secret), url.PathEscape(secret)} {
			if strings.Contains(scrubbed.Error(), form) {
				t.Errorf("%s: %q holds the password", name, scrubbed)
			}
		}
		t.Logf("%s: %s", name, scrubbed)
	}
}
