// Command dqs-scanbench measures the PostgreSQL push-down scan
// (connectors/postgresql) against the floor of the same server: the time of
// one SELECT count(*) over the same table. It prints the wall time of a
// full Profile and of a Sample, their ratio to the floor, the bytes the
// server sent, and the peak memory of this process, then a one-line
// verdict against the targets: the scan within 3x the floor, under 64 MB
// of memory in DQS whatever the table size.
//
//	go run ./cmd/dqs-scanbench [-pg URL] [-rows N] [-schema NAME] [-sample N]
//
// The first run creates a table of -rows rows (10,000,000 by default, about
// 1.3 GB on disk, a minute or two) and 12 mixed columns in the schema
// -schema; later runs reuse it when it holds the same number of rows (a
// table comment records it once the load is complete). Each run analyses
// it (Profile reads pg_stats) and reads it once untimed, so that every
// timing starts from the same cache.
//
// The connection goes through a plain net.Dialer wrapped to count the
// bytes read from the server: this is the operator's bench, so it may dial
// loopback, which the product's network guard would refuse. Without a
// reachable PostgreSQL it says so and exits 0, so that `make bench` runs
// on a machine without one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/postgresql"
)

// Targets, from the product's issue.
const (
	targetRatio = 3.0
	targetMiB   = 64
)

// tableVersion is recorded in the table comment with the row count; a
// change of the generator bumps it so that an old table is rebuilt.
const tableVersion = 1

const tableName = "scan"

// emailFormat is the format Profile checks the e-mail column against, as
// the scan passes the dominant format of its sample.
const emailFormat = `^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func defaultURL() string {
	if u := os.Getenv("DQS_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dqs-scanbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("pg", defaultURL(), "PostgreSQL `URL` (default $DQS_TEST_POSTGRES_URL)")
	rows := fs.Int64("rows", 10_000_000, "rows of the benchmark table")
	schema := fs.String("schema", "dqs_bench", "schema of the benchmark table (created, reused on later runs)")
	sample := fs.Int("sample", 5000, "rows Sample returns")
	floorRuns := fs.Int("floor-runs", 3, "count(*) runs; the best is the floor")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: dqs-scanbench [flags]\n\nTimes the PostgreSQL push-down profile of a generated table against one\nSELECT count(*) of it (the floor). The first run creates the table (about\n1.3 GB for 10,000,000 rows) in -schema; later runs reuse it.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *rows <= 0 || *sample < 0 || *floorRuns < 1 || *schema == "" {
		fs.Usage()
		return 2
	}
	cfg, err := pgx.ParseConfig(*url)
	if err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: -pg: %v\n", err)
		return 2
	}

	ctx := context.Background()
	dialer := &countingDialer{}
	cfg.DialFunc = dialer.DialContext
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	admin, err := pgx.ConnectConfig(cctx, cfg)
	cancel()
	if err != nil {
		// Not a failure of the bench: there is nothing to measure here.
		fmt.Fprintf(stdout, "dqs-scanbench: the scan benchmark needs PostgreSQL (-pg or DQS_TEST_POSTGRES_URL); none answered at %s:%d, skipped\n", cfg.Host, cfg.Port)
		return 0
	}
	defer admin.Close(ctx)

	var version string
	if err := admin.QueryRow(ctx, "SELECT current_setting('server_version')").Scan(&version); err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "machine: %s/%s, %d CPUs; PostgreSQL %s at %s:%d%s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), version, cfg.Host, cfg.Port, loadText())

	if err := ensureTable(ctx, admin, *schema, *rows, stderr); err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: preparing the table: %v\n", err)
		return 1
	}
	ident := pgx.Identifier{*schema, tableName}.Sanitize()
	if _, err := admin.Exec(ctx, "ANALYZE "+ident); err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: ANALYZE: %v\n", err)
		return 1
	}
	var size int64
	if err := admin.QueryRow(ctx, "SELECT pg_relation_size($1::regclass)", ident).Scan(&size); err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: %v\n", err)
		return 1
	}

	// The floor: one count(*) as the server runs it by default, best of
	// floorRuns, after an untimed one that brings the table into the cache.
	var n int64
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM "+ident).Scan(&n); err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: count(*): %v\n", err)
		return 1
	}
	var floor time.Duration
	var floorBytes int64
	for i := 0; i < *floorRuns; i++ {
		before := dialer.read.Load()
		start := time.Now()
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM "+ident).Scan(&n); err != nil {
			fmt.Fprintf(stderr, "dqs-scanbench: count(*): %v\n", err)
			return 1
		}
		if d := time.Since(start); floor == 0 || d < floor {
			floor, floorBytes = d, dialer.read.Load()-before
		}
	}
	fmt.Fprintf(stdout, "table: %s, %d rows, 12 columns, %.0f MB on disk\n", ident, n, float64(size)/1e6)
	fmt.Fprintf(stdout, "floor:   SELECT count(*)         %8.2f s  (best of %d)  %s received\n", floor.Seconds(), *floorRuns, bytesText(floorBytes))

	// The scan, in a source of its own so that its connections (and the
	// bytes they read) are the scan's.
	runtime.GC()
	resetPeakRSS()
	peak := startHeapWatch()
	scanDialer := &countingDialer{}
	open := func(sampledProfile bool) (*postgresql.Source, error) {
		return postgresql.Open(ctx, connectors.Options{
			Credentials:    credentials(cfg),
			Schema:         *schema,
			Dialer:         scanDialer,
			Timeout:        30 * time.Minute,
			SampledProfile: sampledProfile,
		})
	}
	src, err := open(false)
	if err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: open: %v\n", err)
		return 1
	}
	defer src.Close()
	// The same scan with the source's profile_mode "sampled".
	sampledSrc, err := open(true)
	if err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: open: %v\n", err)
		return 1
	}
	defer sampledSrc.Close()

	before := scanDialer.read.Load()
	start := time.Now()
	sampled, err := readSample(ctx, src, *sample)
	if err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: Sample: %v\n", err)
		return 1
	}
	sampleTime, sampleBytes := time.Since(start), scanDialer.read.Load()-before

	// Profile as a scan runs it, with the format the sample suggests for
	// the e-mail column (its regular expression runs on the non-blank
	// values of the profile's sample), then without any format, to show
	// what the formats cost.
	profile := func(src *postgresql.Source, formats map[string]string) (*postgresql.TableProfile, time.Duration, int64, error) {
		before := scanDialer.read.Load()
		start := time.Now()
		p, err := src.Profile(ctx, tableName, formats)
		return p, time.Since(start), scanDialer.read.Load() - before, err
	}
	emailFormats := map[string]string{"email": emailFormat}
	p, profileTime, profileBytes, err := profile(src, emailFormats)
	if err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: Profile: %v\n", err)
		return 1
	}
	bare, bareTime, bareBytes, err := profile(src, nil)
	if err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: Profile: %v\n", err)
		return 1
	}
	sp, sampledTime, sampledBytes, err := profile(sampledSrc, emailFormats)
	if err != nil {
		fmt.Fprintf(stderr, "dqs-scanbench: Profile (sampled mode): %v\n", err)
		return 1
	}
	heapPeak := peak()
	rssKiB := peakRSSKiB()

	if p.Rows != n || bare.Rows != n || sp.Rows != n {
		fmt.Fprintf(stderr, "dqs-scanbench: Profile counted %d rows, count(*) %d\n", p.Rows, n)
		return 1
	}
	x := func(d time.Duration) float64 { return d.Seconds() / floor.Seconds() }
	total := sampleTime + profileTime
	ratio := x(total)
	fmt.Fprintf(stdout, "sample:  Sample(%d)              %8.2f s  %5.2fx floor  %s received (%d rows)\n", *sample, sampleTime.Seconds(), x(sampleTime), bytesText(sampleBytes), sampled)
	fmt.Fprintf(stdout, "profile: Profile, e-mail format  %8.2f s  %5.2fx floor  %s received (%d queries)\n", profileTime.Seconds(), x(profileTime), bytesText(profileBytes), p.Queries)
	fmt.Fprintf(stdout, "profile: Profile, no format      %8.2f s  %5.2fx floor  %s received (%d queries)\n", bareTime.Seconds(), x(bareTime), bytesText(bareBytes), bare.Queries)
	fmt.Fprintf(stdout, "scan:    Sample + Profile        %8.2f s  %5.2fx floor  %s received (without the format: %.2fx)\n", total.Seconds(), ratio, bytesText(sampleBytes+profileBytes), x(sampleTime+bareTime))
	fmt.Fprintf(stdout, "figures: estimated from the sample or pg_stats: %s; the others exact\n", estimates(p))
	sampledTotal := sampleTime + sampledTime
	sampledRatio := x(sampledTotal)
	fmt.Fprintf(stdout, "sampled mode (profile_mode sampled):\n")
	fmt.Fprintf(stdout, "profile: Profile, e-mail format  %8.2f s  %5.2fx floor  %s received (%d queries)\n", sampledTime.Seconds(), x(sampledTime), bytesText(sampledBytes), sp.Queries)
	fmt.Fprintf(stdout, "scan:    Sample + Profile        %8.2f s  %5.2fx floor  %s received\n", sampledTotal.Seconds(), sampledRatio, bytesText(sampleBytes+sampledBytes))
	fmt.Fprintf(stdout, "figures: estimated from the sample or pg_stats: %s; the others exact\n", estimates(sp))
	rssText := "unknown"
	if rssKiB >= 0 {
		rssText = fmt.Sprintf("%.1f MiB", float64(rssKiB)/1024)
	}
	fmt.Fprintf(stdout, "memory:  peak Go heap %.1f MiB, peak RSS (VmHWM) %s\n", float64(heapPeak)/(1<<20), rssText)
	if l := loadText(); l != "" {
		fmt.Fprintf(stdout, "after:  %s\n", strings.TrimPrefix(l, "; "))
	}
	fmt.Fprintln(stdout, verdict("exact mode", ratio, rssKiB, heapPeak))
	fmt.Fprintln(stdout, verdict("sampled mode", sampledRatio, rssKiB, heapPeak))
	return 0
}

// estimates lists the figures Profile reports as estimates
// (ColumnMetrics.Estimated), each with the number of columns it is an
// estimate for, in the order first met.
func estimates(p *postgresql.TableProfile) string {
	var names []string
	count := map[string]int{}
	for _, c := range p.Columns {
		for _, e := range c.Estimated {
			if count[e] == 0 {
				names = append(names, e)
			}
			count[e]++
		}
	}
	if len(names) == 0 {
		return "none"
	}
	for i, n := range names {
		cols := "columns"
		if count[n] == 1 {
			cols = "column"
		}
		names[i] = fmt.Sprintf("%s (%d %s)", n, count[n], cols)
	}
	return strings.Join(names, ", ")
}

// verdict is the one-line judgement against the targets. Memory is judged
// on the RSS when the platform reports it (it bounds the heap), else on
// the heap.
func verdict(mode string, ratio float64, rssKiB int64, heapBytes uint64) string {
	mib := float64(rssKiB) / 1024
	what := "peak RSS"
	if rssKiB < 0 {
		mib, what = float64(heapBytes)/(1<<20), "peak Go heap"
	}
	speedOK, memOK := ratio <= targetRatio, mib < targetMiB
	word := "PASS"
	if !speedOK || !memOK {
		word = "MISS"
	}
	mark := func(ok bool) string {
		if ok {
			return "met"
		}
		return "missed"
	}
	return fmt.Sprintf("verdict (%s): %s: scan %.2fx the count(*) floor (target <= %.0fx: %s), %s %.1f MiB (target < %d MiB: %s)",
		mode, word, ratio, targetRatio, mark(speedOK), what, mib, targetMiB, mark(memOK))
}

func bytesText(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// credentials are the connector's fields for the URL's server. A URL
// without TLS is read as sslmode=disable, the others as prefer.
func credentials(cfg *pgx.ConnConfig) connectors.Credentials {
	sslmode := "prefer"
	if cfg.TLSConfig == nil && len(cfg.Fallbacks) == 0 {
		sslmode = "disable"
	}
	return connectors.Credentials{
		"host":     cfg.Host,
		"port":     strconv.Itoa(int(cfg.Port)),
		"database": cfg.Database,
		"username": cfg.User,
		"password": cfg.Password,
		"sslmode":  sslmode,
	}
}

// readSample reads a whole Sample, as the classifier does.
func readSample(ctx context.Context, src *postgresql.Source, limit int) (int, error) {
	r, err := src.Sample(ctx, tableName, limit)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// countingDialer dials with a plain net.Dialer and counts the bytes read
// from every connection it opened.
type countingDialer struct {
	d    net.Dialer
	read atomic.Int64
}

func (c *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, read: &c.read}, nil
}

type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.read.Add(int64(n))
	return n, err
}

// startHeapWatch samples the Go heap every 5 ms until the returned
// function is called, which returns the highest reading. The runtime keeps
// no high-water mark of its own; a peak shorter than the interval could
// be missed, which the RSS's high-water mark (kept by the kernel) covers.
func startHeapWatch() func() uint64 {
	var mu sync.Mutex
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	read := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		peak = max(peak, ms.HeapAlloc)
		mu.Unlock()
	}
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		read()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// resetPeakRSS resets the kernel's high-water mark of this process's RSS
// (Linux: writing 5 to clear_refs), so that VmHWM is the scan's peak and
// not the table load's. Elsewhere, or when refused, the mark covers the
// whole run, which only overstates it.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSSKiB is VmHWM from /proc/self/status, -1 where there is none.
func peakRSSKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return v
				}
			}
		}
	}
	return -1
}

// loadText is the machine's load average (Linux), since other work on the
// machine slows the floor and the scan unequally: the figures of a loaded
// machine are not comparable with a quiet one's.
func loadText() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return "; load average " + strings.Join(f[:3], " ")
}
