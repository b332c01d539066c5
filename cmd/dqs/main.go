// Command dqs is the data quality service: one binary whose subcommands run
// the API, the worker, both at once (the single-machine shape) or the
// database migrations.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/dqs/dqs/app"
	"github.com/dqs/dqs/config"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

const usage = `dqs — the data quality service

Usage:
  dqs dev       API and worker in one process (single machine; SQLite by default)
  dqs api       the HTTP API only (cluster shape)
  dqs worker [--queues all|default|analysis]
                the Temporal worker only (cluster shape); --queues
                overrides DQS_WORKER_QUEUES
  dqs migrate   apply database migrations and exit
  dqs profile [--json] FILE...
                profile, classify and score local files (no server needed)
  dqs anomalies [--sensitivity low|medium|high] [--metric NAME] [--json] FILE.csv
                replay a timestamp,value series (- for standard input)
                through the anomaly detector and print what it flags
  dqs version   print the version
  dqs --help    this text

Configuration is read from the environment:

`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "--help" || args[0] == "-h" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		config.PrintHelp(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "profile" {
		return profileFiles(context.Background(), args[1:], stdout, stderr)
	}
	if args[0] == "anomalies" {
		return anomaliesFile(args[1:], stdout, stderr)
	}
	cfg, err := config.Load(config.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "dqs: configuration:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "version":
		fmt.Fprintln(stdout, version)
		return 0
	case "migrate":
		db, err := app.OpenDatabase(ctx, cfg)
		if err != nil {
			fmt.Fprintln(stderr, "dqs migrate:", err)
			return 1
		}
		db.Close()
		fmt.Fprintln(stdout, "dqs migrate: database is up to date")
		return 0
	case "dev":
		// One process is the whole service, so it polls both queues even
		// when the environment was set up for a worker of one queue: with
		// either missing, jobs would wait for a worker that never comes.
		cfg.WorkerQueues = config.AllQueues
		// Sources may reach loopback, unless DQS_SOURCE_ALLOW_LOOPBACK says
		// otherwise: a developer's database usually runs beside dqs dev.
		cfg.SingleMachine()
		return serve(ctx, cfg, app.Options{API: true, Worker: true, Version: version}, stdout, stderr)
	case "api":
		return serve(ctx, cfg, app.Options{API: true, Version: version}, stdout, stderr)
	case "worker":
		if err := workerFlags(cfg, args[1:], stderr); err != nil {
			fmt.Fprintln(stderr, "dqs worker:", err)
			return 2
		}
		return serve(ctx, cfg, app.Options{Worker: true, Version: version}, stdout, stderr)
	}
	fmt.Fprintf(stderr, "dqs: unknown command %q; run dqs --help\n", args[0])
	return 2
}

// workerFlags applies `dqs worker`'s flags over the environment, so one
// deployment's environment can serve workers of either queue.
func workerFlags(cfg *config.Config, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("dqs worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	queues := fs.String("queues", string(cfg.WorkerQueues), "task queues to poll: all, default or analysis (overrides DQS_WORKER_QUEUES)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	q, err := config.ParseWorkerQueues(*queues)
	if err != nil {
		return fmt.Errorf("--queues=%q: %v", *queues, err)
	}
	cfg.WorkerQueues = q
	return nil
}

// localURL is where a browser on this machine reaches the API listening
// on addr, for the start banner: a wildcard host (":8080", "0.0.0.0:8080",
// "[::]:8080") is localhost, any other host is kept as written, an IPv6
// address in brackets.
func localURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	// A zone ("fe80::1%eth0") is written %25 in a URL (RFC 6874).
	return "http://" + net.JoinHostPort(strings.ReplaceAll(host, "%", "%25"), port)
}

// sourceNetworks lists, for the start banner, the non-public networks data
// sources may reach (DQS_SOURCE_ALLOW_LOOPBACK, DQS_SOURCE_ALLOW_NETWORKS);
// empty when only public addresses are.
func sourceNetworks(cfg *config.Config) string {
	var out []string
	if cfg.SourceAllowLoopback {
		out = append(out, "loopback")
	}
	for _, p := range cfg.SourceAllowNetworks {
		out = append(out, p.String())
	}
	return strings.Join(out, ", ")
}

func serve(ctx context.Context, cfg *config.Config, opt app.Options, stdout, stderr io.Writer) int {
	a, err := app.New(ctx, cfg, opt)
	if err != nil {
		fmt.Fprintln(stderr, "dqs:", err)
		return 1
	}
	defer a.Close(context.Background())
	if opt.API {
		// Listening before the banner: once it is printed, requests are
		// accepted (scripts and tests wait for it).
		ln, err := net.Listen("tcp", cfg.HTTPAddr)
		if err != nil {
			fmt.Fprintf(stderr, "dqs: listen on %s: %v\n", cfg.HTTPAddr, err)
			return 1
		}
		fmt.Fprintf(stdout, "DQS %s\n  API          %s/api/v1 (health: /api/v1/public/health, reference: /api/v1/docs)\n  Temporal UI  %s\n",
			version, localURL(cfg.HTTPAddr), cfg.TemporalUIURL)
		if n := sourceNetworks(cfg); n != "" {
			fmt.Fprintf(stdout, "  Sources      may also reach %s\n", n)
		}
		if err := a.ServeListener(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "dqs:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "DQS %s worker polling Temporal at %s (queues: %s)\n", version, cfg.TemporalAddress, cfg.WorkerQueues)
	<-ctx.Done()
	return 0
}
