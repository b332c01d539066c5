// Package temporaltest starts a real Temporal dev server (the Temporal CLI's
// `server start-dev`) for integration tests.
//
// The CLI binary is never downloaded: it must already be installed (run
// `make temporal-cli`), or $DQS_TEMPORAL_CLI must point at it. Tests fail
// rather than skip when it is missing.
package temporaltest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
)

// CLIVersion is the Temporal CLI version the tests are written against.
const CLIVersion = "1.5.1"

// EnvCLIPath names the environment variable that overrides CLIPath.
const EnvCLIPath = "DQS_TEMPORAL_CLI"

const (
	// startTimeout bounds how long Start waits for the server to accept
	// connections. Generous because CI machines can be small and busy.
	startTimeout = 90 * time.Second
	// stopTimeout bounds how long cleanup waits for the server to exit.
	stopTimeout = 30 * time.Second
	// maxOutput is how much of the server's output is kept for diagnostics.
	maxOutput = 64 << 10
)

// Server is a running dev server and a client connected to it.
type Server struct {
	// Client is connected to Namespace on the server. Closed on cleanup.
	Client client.Client
	// HostPort is the server's frontend gRPC address, e.g. "127.0.0.1:40123".
	HostPort string
	// Namespace is the registered namespace Client uses ("default").
	Namespace string
}

// CLIPath returns the Temporal CLI binary: $DQS_TEMPORAL_CLI if set, else
// $HOME/.cache/dqs/tools/temporal-1.5.1/temporal (where `make temporal-cli`
// installs it).
func CLIPath() string {
	if p := os.Getenv(EnvCLIPath); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = os.Getenv("HOME")
	}
	return filepath.Join(home, ".cache", "dqs", "tools", "temporal-"+CLIVersion, "temporal")
}

// Start starts one dev server on free local ports (in-memory DB, no UI, log
// level warn) and returns a client connected to it. t.Cleanup closes the
// client and stops the server. If the CLI binary is missing, Start calls
// t.Fatalf telling the developer to run `make temporal-cli`.
func Start(t testing.TB) *Server {
	t.Helper()

	cli := CLIPath()
	if err := checkExecutable(cli); err != nil {
		t.Fatalf("temporaltest: Temporal CLI not usable at %s: %v\n"+
			"Run `make temporal-cli` to install it (or set %s to an existing temporal %s binary).",
			cli, err, EnvCLIPath, CLIVersion)
	}

	const namespace = "default"
	out := &tailBuffer{max: maxOutput}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()

	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath: cli, // never download
		ClientOptions: &client.Options{
			Namespace: namespace,
			Logger:    quietLogger(),
		},
		LogLevel: "warn",
		EnableUI: false, // --headless
		// DBFilename empty: in-memory SQLite.
		Stdout: out,
		Stderr: out,
	})
	if err != nil {
		t.Fatalf("temporaltest: starting Temporal dev server (%s): %v\nserver output:\n%s", cli, err, out.String())
	}

	s := &Server{
		Client:    srv.Client(),
		HostPort:  srv.FrontendHostPort(),
		Namespace: namespace,
	}
	t.Cleanup(func() {
		s.Client.Close()
		done := make(chan error, 1)
		go func() { done <- srv.Stop() }()
		select {
		case err := <-done:
			// The CLI exits non-zero on SIGINT on some versions; only report
			// it when the test failed anyway, together with the output.
			if t.Failed() {
				t.Logf("temporaltest: dev server at %s stopped (%v); output:\n%s", s.HostPort, err, out.String())
			}
		case <-time.After(stopTimeout):
			t.Errorf("temporaltest: dev server at %s did not stop within %s; output:\n%s", s.HostPort, stopTimeout, out.String())
		}
	})
	return s
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("is a directory")
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("not executable (mode %v)", fi.Mode())
	}
	return nil
}

// quietLogger keeps the SDK client from printing INFO lines into test output.
func quietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// tailBuffer is a goroutine-safe writer that keeps the last max bytes
// written. The server's output goes here instead of the test binary's
// stdout/stderr, so it neither clutters test output nor keeps `go test`
// waiting on an inherited pipe.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if len(p) > b.max {
		p = p[len(p)-b.max:]
	}
	if over := b.buf.Len() + len(p) - b.max; over > 0 {
		b.buf.Next(over)
	}
	b.buf.Write(p)
	return n, nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() == 0 {
		return "(none)"
	}
	return b.buf.String()
}
