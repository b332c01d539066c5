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

// Start starts one dev server for this test on free local ports (in-memory
// DB, no UI, log level warn) and returns a connected client; t.Cleanup stops
// both. A missing binary fails the test (tests never skip for this).
func Start(t testing.TB) *Server {
	t.Helper()
	s, stop, out, err := start()
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("temporaltest: %v; output:\n%s", err, out.String())
		} else if t.Failed() {
			t.Logf("temporaltest: dev server at %s output:\n%s", s.HostPort, out.String())
		}
	})
	return s
}

var shared struct {
	once sync.Once
	s    *Server
	stop func() error
	err  error
}

// Shared returns one dev server for the whole test binary, started on
// first use, so a package of integration tests pays the start-up once. The
// package's TestMain must call Main so the server is stopped at the end.
// Tests sharing it keep apart by using their own task queue names.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() { shared.s, shared.stop, _, shared.err = start() })
	if shared.err != nil {
		t.Fatalf("%v", shared.err)
	}
	return shared.s
}

// Main runs the tests and then stops the shared server, if one started.
func Main(m *testing.M) {
	code := m.Run()
	if shared.stop != nil {
		if err := shared.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "temporaltest:", err)
		}
	}
	os.Exit(code)
}

// start starts a dev server and returns it with the function that stops it.
func start() (*Server, func() error, *tailBuffer, error) {
	cli := CLIPath()
	if err := checkExecutable(cli); err != nil {
		return nil, nil, nil, fmt.Errorf("temporaltest: Temporal CLI not usable at %s: %v\n"+
			"Run `make temporal-cli` to install it (or set %s to an existing temporal %s binary)",
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
		Stdout:   out,
		Stderr:   out,
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("temporaltest: starting Temporal dev server (%s): %v\nserver output:\n%s", cli, err, out.String())
	}
	s := &Server{Client: srv.Client(), HostPort: srv.FrontendHostPort(), Namespace: namespace}
	stop := func() error {
		s.Client.Close()
		done := make(chan error, 1)
		go func() { done <- srv.Stop() }()
		select {
		case <-done:
			return nil
		case <-time.After(stopTimeout):
			return fmt.Errorf("dev server at %s did not stop within %s", s.HostPort, stopTimeout)
		}
	}
	return s, stop, out, nil
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
