// Command dqs-bench measures the profiling engine end to end on a large
// generated data set: throughput (MB/s, rows/s) and peak memory (RSS) of
// `dqs profile --json FILE` for the same rows as CSV, JSON Lines and Parquet.
//
// The first run generates the data into a cache directory (about 1.9 GB
// for the default 3,000,000 rows: ~590 MB of CSV, ~1.07 GB of JSON Lines,
// ~265 MB of Parquet, in about half a minute); later runs reuse it. Each file is profiled in
// its own dqs process, so the peak RSS reported is that one measurement's.
//
//	go run ./cmd/dqs-bench [-rows N] [-dir DIR] [-formats csv,jsonl,parquet] [-dqs PATH]
//
// With -compare-duckdb SCRIPT it times nothing and instead checks dqs's
// figures against DuckDB's exact ones on the same files (compare.go).
//
// MB are 10^6 bytes throughout (file sizes, MB/s and RSS).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type result struct {
	format   string
	rows     int64
	size     int64
	elapsed  time.Duration
	rssKiB   int64 // -1 when unknown
	floorKiB int64 // the measuring helper's own peak RSS; -1 when unknown
	err      error
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dqs-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.Int64("rows", 3_000_000, "rows to generate")
	dir := fs.String("dir", defaultDir(), "cache directory for the generated files and the dqs binary")
	formats := fs.String("formats", "csv,jsonl,parquet", "comma-separated formats to measure")
	dqs := fs.String("dqs", "", "dqs binary to run (default: build ./cmd/dqs into -dir)")
	compare := fs.String("compare-duckdb", "", "instead of timing, compare dqs's figures with DuckDB's exact ones, computed by this `script` (scripts/duckdb-figures.mjs, next to an installed @duckdb/node-api; see make bench-compare)")
	node := fs.String("node", "node", "Node.js binary that runs the -compare-duckdb script")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: dqs-bench [flags]\n\nProfiles generated CSV, JSON Lines and Parquet files with `dqs profile --json`\nand prints MB/s, rows/s and peak RSS per format. The first run generates the\nfiles (about 1.9 GB for 3,000,000 rows) into -dir; later runs reuse them.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *rows <= 0 || *dir == "" {
		fs.Usage()
		return 2
	}
	var list []string
	for _, f := range strings.Split(*formats, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if _, ok := fileNames[f]; !ok {
			fmt.Fprintf(stderr, "dqs-bench: unknown format %q (want csv, jsonl or parquet)\n", f)
			return 2
		}
		list = append(list, f)
	}
	if len(list) == 0 {
		fmt.Fprintln(stderr, "dqs-bench: no formats to measure")
		return 2
	}

	if _, err := ensureData(*dir, *rows, stderr); err != nil {
		fmt.Fprintf(stderr, "dqs-bench: generating data: %v\n", err)
		return 1
	}
	bin := *dqs
	if bin == "" {
		var err error
		if bin, err = buildDQS(*dir, stderr); err != nil {
			fmt.Fprintf(stderr, "dqs-bench: building dqs: %v\n", err)
			return 1
		}
	}

	printMachine(stdout, bin)
	if *compare != "" {
		return compareDuckDB(stdout, stderr, *dir, bin, *node, *compare, list)
	}
	var results []result
	status := 0
	for _, f := range list {
		res := measure(bin, filepath.Join(*dir, fileNames[f]), f, *rows)
		if res.err != nil {
			fmt.Fprintf(stderr, "dqs-bench: %s: %v\n", f, res.err)
			status = 1
		}
		results = append(results, res)
	}
	printTable(stdout, results)
	return status
}

func defaultDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "dqs", "bench")
}

// buildDQS builds the engine's command into dir. The package is named by
// import path, so this works from anywhere inside the module.
func buildDQS(dir string, log io.Writer) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "dqs")
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	fmt.Fprintf(log, "building dqs into %s…\n", out)
	// go run and go test put their own toolchain first on PATH.
	cmd := exec.Command("go", "build", "-o", out, "github.com/dqs/dqs/cmd/dqs")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return out, nil
}

// measure runs `dqs profile --json path` in a fresh process and reports its
// wall time and peak RSS. The file is read once beforehand so that every
// format is measured from the page cache, not from disk.
//
// The dqs process is started by a small helper process (this binary again,
// see childMain), not by this one: on Linux, Go starts children with
// vfork semantics (CLONE_VM), and at exec the kernel records the memory
// high-water mark of the shared address space as the child's max RSS. A
// child of this process would therefore report at least this process's
// own peak (which includes generating the data); a child of the fresh
// helper reports at most the helper's few MB as a floor.
func measure(bin, path, format string, rows int64) result {
	res := result{format: format, rows: rows, rssKiB: -1}
	st, err := os.Stat(path)
	if err != nil {
		res.err = err
		return res
	}
	res.size = st.Size()
	if err := warm(path); err != nil {
		res.err = err
		return res
	}
	self, err := os.Executable()
	if err != nil {
		res.err = err
		return res
	}
	var out, errBuf bytes.Buffer
	cmd := exec.Command(self, bin, path)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdout, cmd.Stderr = &out, &errBuf
	if err := cmd.Run(); err != nil {
		res.err = fmt.Errorf("measuring helper failed: %v: %s", err, strings.TrimSpace(errBuf.String()))
		return res
	}
	var rep childReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		res.err = fmt.Errorf("measuring helper: bad report %q: %v", out.String(), err)
		return res
	}
	res.elapsed = time.Duration(rep.ElapsedNS)
	res.rssKiB = rep.MaxRSSKiB
	res.floorKiB = rep.FloorKiB
	if rep.Error != "" {
		res.err = fmt.Errorf("dqs profile failed: %s: %s", rep.Error, rep.Stderr)
	}
	return res
}

// childEnv, set to 1, makes this binary the measuring helper.
const childEnv = "DQS_BENCH_CHILD"

type childReport struct {
	ElapsedNS int64  `json:"elapsed_ns"`
	MaxRSSKiB int64  `json:"max_rss_kib"` // -1 when the platform does not say
	FloorKiB  int64  `json:"floor_kib"`   // the helper's own peak RSS: the lowest max RSS a child can report; -1 if unknown
	Error     string `json:"error,omitempty"`
	Stderr    string `json:"stderr,omitempty"` // the tail of dqs's stderr on failure
}

// childMain is the measuring helper: args are the dqs binary and the file.
// It runs `dqs profile --json FILE >/dev/null` and prints a childReport.
func childMain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "dqs-bench helper: want DQS FILE")
		return 2
	}
	rep := childReport{MaxRSSKiB: -1, FloorKiB: selfPeakKiB()}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer devnull.Close()
	var errBuf bytes.Buffer
	cmd := exec.Command(args[0], "profile", "--json", args[1])
	cmd.Stdout, cmd.Stderr = devnull, &errBuf
	start := time.Now()
	err = cmd.Run()
	rep.ElapsedNS = int64(time.Since(start))
	if cmd.ProcessState != nil {
		rep.MaxRSSKiB = maxRSSKiB(cmd.ProcessState)
	}
	if err != nil {
		rep.Error = err.Error()
		msg := strings.TrimSpace(errBuf.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		rep.Stderr = msg
	}
	if err := json.NewEncoder(stdout).Encode(rep); err != nil {
		return 1
	}
	return 0
}

// selfPeakKiB is this process's peak RSS (VmHWM), or -1 where /proc has none.
func selfPeakKiB() int64 {
	v, err := procField("/proc/self/status", "VmHWM")
	if err != nil {
		return -1
	}
	var kb int64
	if _, err := fmt.Sscanf(v, "%d", &kb); err != nil {
		return -1
	}
	return kb
}

func warm(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.CopyBuffer(io.Discard, f, make([]byte, 1<<20))
	return err
}

func printTable(w io.Writer, results []result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "FORMAT\tROWS\tSIZE MB\tSECONDS\tMB/S\tROWS/S\tPEAK RSS MB\t")
	for _, r := range results {
		rss := "?"
		if r.rssKiB >= 0 {
			rss = fmt.Sprintf("%.1f", float64(r.rssKiB)*1024/1e6)
		}
		mb := float64(r.size) / 1e6
		if r.err != nil {
			fmt.Fprintf(tw, "%s\t%d\t%.1f\tFAILED\t-\t-\t%s\t\n", r.format, r.rows, mb, rss)
			continue
		}
		secs := r.elapsed.Seconds()
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.1f\t%.0f\t%s\t\n", r.format, r.rows, mb, secs, mb/secs, float64(r.rows)/secs, rss)
	}
	tw.Flush()
	var floor int64 = -1
	for _, r := range results {
		floor = max(floor, r.floorKiB)
	}
	if floor > 0 {
		fmt.Fprintf(w, "(MB = 10^6 bytes; peak RSS is the dqs process's own max RSS and reads no lower than the measuring helper's %.1f MB)\n", float64(floor)*1024/1e6)
	}
}

func printMachine(w io.Writer, bin string) {
	fmt.Fprintf(w, "machine: %s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if m := cpuModel(); m != "" {
		fmt.Fprintf(w, ", %s", m)
	}
	if kb := memTotalKiB(); kb > 0 {
		fmt.Fprintf(w, ", %.1f GB RAM", float64(kb)*1024/1e9)
	}
	fmt.Fprintf(w, "\ngo: %s\ndqs: %s\n", runtime.Version(), bin)
}

// cpuModel is the first "model name" in /proc/cpuinfo, or "" elsewhere.
func cpuModel() string {
	v, _ := procField("/proc/cpuinfo", "model name")
	return v
}

func memTotalKiB() int64 {
	v, err := procField("/proc/meminfo", "MemTotal")
	if err != nil {
		return 0
	}
	var kb int64
	fmt.Sscanf(v, "%d", &kb)
	return kb
}

func procField(path, key string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v), nil
		}
	}
	return "", errors.New(key + " not found")
}
