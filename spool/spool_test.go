package spool_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dqs/dqs/spool"
)

// childRootEnv makes the test binary a spooling process: it opens a spool
// under the root it names, writes one file, prints its directory, and
// holds it until its standard input closes, then closes the spool.
const childRootEnv = "SPOOL_TEST_CHILD_ROOT"

func TestMain(m *testing.M) {
	if root := os.Getenv(childRootEnv); root != "" {
		os.Exit(child(root))
	}
	os.Exit(m.Run())
}

func child(root string) int {
	d, err := spool.Open(root, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f, err := d.CreateTemp("upload-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	f.WriteString("half an upload")
	fmt.Println(d.Path())
	io.Copy(io.Discard, os.Stdin)
	f.Close()
	if err := d.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// spoolingProcess is a child process holding a spool directory.
type spoolingProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	dir   string
}

func startSpooling(t *testing.T, root string) *spoolingProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childRootEnv+"="+root)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("spooling process: %v", err)
	}
	return &spoolingProcess{cmd: cmd, stdin: stdin, dir: strings.TrimSpace(line)}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func spoolFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "upload-*"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestOpenRemovesWhatEndedProcessesLeft: a process killed mid-upload
// leaves its spool file; the next process to open the spool removes it,
// but not the files of a process still running, nor anything in the root
// that the spool did not name.
func TestOpenRemovesWhatEndedProcessesLeft(t *testing.T) {
	root := filepath.Join(t.TempDir(), "spool")
	live := startSpooling(t, root)
	crashed := startSpooling(t, root)
	if err := crashed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	crashed.cmd.Wait()
	if len(spoolFiles(t, crashed.dir)) != 1 {
		t.Fatalf("the killed process left no spool file in %s; the test proves nothing", crashed.dir)
	}
	foreign := []string{filepath.Join(root, "notes.txt"), filepath.Join(root, "proc-not-a-dir"), filepath.Join(root, "other", "file")}
	for _, p := range foreign {
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("not the spool's"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	var logs bytes.Buffer
	d, err := spool.Open(root, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if exists(crashed.dir) {
		t.Errorf("the killed process's spool %s was not removed", crashed.dir)
	}
	if len(spoolFiles(t, live.dir)) != 1 {
		t.Errorf("the live process's spool file in %s was removed", live.dir)
	}
	for _, p := range foreign {
		if !exists(p) {
			t.Errorf("%s, not the spool's, was removed", p)
		}
	}
	if !strings.Contains(logs.String(), "removed the spool files of ended processes") || !strings.Contains(logs.String(), "directories=1") {
		t.Errorf("the removal was not logged: %s", logs.String())
	}
	if filepath.Dir(d.Path()) != root || !strings.HasPrefix(filepath.Base(d.Path()), "proc-") || !exists(d.Path()) {
		t.Errorf("own directory = %s", d.Path())
	}

	// A process that ends normally removes its own directory.
	live.stdin.Close()
	if err := live.cmd.Wait(); err != nil {
		t.Fatalf("spooling process: %v", err)
	}
	if exists(live.dir) {
		t.Errorf("%s is left after its process closed its spool", live.dir)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if exists(d.Path()) {
		t.Errorf("%s is left after Close", d.Path())
	}
}

// TestSpoolFilesArePrivate: the root and the process directory are 0700,
// spool files 0600, and they are made in the process's directory.
func TestSpoolFilesArePrivate(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data", "spool")
	d, err := spool.Open(root, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, err := d.CreateTemp("upload-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if filepath.Dir(f.Name()) != d.Path() {
		t.Fatalf("spool file %s is not in %s", f.Name(), d.Path())
	}
	for path, want := range map[string]os.FileMode{root: 0o700, d.Path(): 0o700, f.Name(): 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
}
