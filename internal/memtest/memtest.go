// Package memtest measures the peak memory of a piece of code by running it
// in a child process of the test binary, alone: a case that would take the
// process down with an out-of-memory error fails the test that measured it
// instead of the whole test binary, and nothing else the tests do adds to
// the figure.
//
// A test package lists its cases and hands control to Main from TestMain;
// a test then calls Measure with a case's name.
package memtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// childEnv names the case a child process runs.
const childEnv = "DQS_MEMTEST_CASE"

// Cases are the pieces of code a package measures, by name. A case returns
// what it found (an error message, a row count), for the test to check.
type Cases map[string]func() string

// Result is what a case returned and the memory its process took.
type Result struct {
	// Peak is the most memory the Go runtime had obtained from the
	// operating system (runtime.MemStats.Sys, which never decreases) when
	// the case ended: heap, stacks and the runtime's own structures.
	Peak uint64 `json:"peak"`
	// Output is what the case returned.
	Output string `json:"output"`
}

const marker = "MEMTEST-RESULT "

// Main runs the case a child process was started for and exits, or returns
// at once in the parent. Call it first in TestMain.
func Main(cases Cases) {
	name := os.Getenv(childEnv)
	if name == "" {
		return
	}
	run, ok := cases[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "memtest: no case %q\n", name)
		os.Exit(3)
	}
	// What the service does too (config.MemoryBudget): the collector works
	// harder near the limit instead of letting garbage double the heap.
	if limit := os.Getenv("DQS_MEMTEST_LIMIT"); limit != "" {
		var n int64
		fmt.Sscan(limit, &n)
		debug.SetMemoryLimit(n)
	}
	out := run()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b, _ := json.Marshal(Result{Peak: m.Sys, Output: out})
	fmt.Println(marker + string(b))
	os.Exit(0)
}

// Measure runs case name in a child process whose Go memory limit is
// softLimit bytes (0: none) and returns its result. A child that fails,
// out of memory or otherwise, fails t.
func Measure(t testing.TB, name string, softLimit int64) Result {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+name, fmt.Sprintf("DQS_MEMTEST_LIMIT=%d", softLimit))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		t.Fatalf("case %s: the child process failed (%v):\n%s", name, err, tail(stderr.String()+stdout.String(), 3000))
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, marker); ok {
			var r Result
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				t.Fatalf("case %s: %v", name, err)
			}
			return r
		}
	}
	t.Fatalf("case %s: no result from the child process:\n%s", name, tail(stdout.String()+stderr.String(), 3000))
	return Result{}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
