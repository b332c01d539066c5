// Package spool holds the temporary files uploads are written to before
// they are checked and stored.
//
// Each process spools into a directory of its own under one root, and
// holds an exclusive lock (flock) on that directory for as long as it
// lives. The kernel drops the lock when the process ends, however it ends,
// so at start a process can tell what a crashed one left behind: every
// directory of the root whose lock is free. It removes those, and leaves
// alone the locked directories of live processes (API replicas sharing a
// data directory) and anything in the root this package did not name.
// The sweep and the creation of a directory hold a lock on the root, so a
// directory is never seen unlocked between its creation and its lock.
//
// The root must be on a local file system (flock over NFS is not
// dependable).
package spool

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// dirPrefix starts the name of every process directory; nothing else in
// the root is ever removed.
const dirPrefix = "proc-"

// Dir is this process's spool directory.
type Dir struct {
	path string
	lock *os.File // the directory itself, locked while the process lives
}

// Open creates root (mode 0700) if needed, removes the directories that
// ended processes left in it, and returns a new locked directory of this
// process. What it removes, and what it cannot, is logged.
func Open(root string, log *slog.Logger) (*Dir, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("spool directory: %w", err)
	}
	rootLock, err := os.Open(root)
	if err != nil {
		return nil, fmt.Errorf("spool directory: %w", err)
	}
	defer rootLock.Close() // closing releases the lock
	if err := lock(rootLock); err != nil {
		return nil, fmt.Errorf("lock spool directory %s: %w", root, err)
	}
	sweep(root, log)
	path, err := os.MkdirTemp(root, dirPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("spool directory: %w", err)
	}
	own, err := os.Open(path)
	if err == nil {
		err = tryLock(own)
	}
	if err != nil {
		if own != nil {
			own.Close()
		}
		os.Remove(path)
		return nil, fmt.Errorf("lock spool directory %s: %w", path, err)
	}
	return &Dir{path: path, lock: own}, nil
}

// sweep removes the process directories of root whose lock is free.
func sweep(root string, log *slog.Logger) {
	if !canTellAbandoned {
		return
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		log.Warn("spool directory not swept", "dir", root, "error", err)
		return
	}
	removed := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), dirPrefix) {
			continue
		}
		path := filepath.Join(root, e.Name())
		gone, err := removeIfAbandoned(path)
		if err != nil {
			log.Warn("spool files of an ended process not removed", "dir", path, "error", err)
		}
		if gone {
			removed++
		}
	}
	if removed > 0 {
		log.Info("removed the spool files of ended processes", "dir", root, "directories", removed)
	}
}

// removeIfAbandoned removes the process directory path unless a live
// process holds its lock.
func removeIfAbandoned(path string) (bool, error) {
	d, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer d.Close()
	if err := tryLock(d); err != nil {
		if errors.Is(err, errLocked) {
			return false, nil
		}
		return false, err
	}
	if err := os.RemoveAll(path); err != nil {
		return false, err
	}
	return true, nil
}

// Path is the process's directory.
func (d *Dir) Path() string { return d.path }

// CreateTemp creates a new file (mode 0600) in the process's directory,
// named by pattern as os.CreateTemp names it; in the system's temporary
// directory when d is nil (tests that need no sweep).
func (d *Dir) CreateTemp(pattern string) (*os.File, error) {
	if d == nil {
		return os.CreateTemp("", pattern)
	}
	return os.CreateTemp(d.path, pattern)
}

// Close removes the process's directory with whatever is still in it,
// then releases its lock.
func (d *Dir) Close() error {
	err := os.RemoveAll(d.path)
	return errors.Join(err, d.lock.Close())
}
