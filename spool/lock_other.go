//go:build !unix

package spool

import (
	"errors"
	"os"
)

// errLocked says another open file holds the lock.
var errLocked = errors.New("locked by a live process")

// canTellAbandoned is false without flock: no directory can be told
// abandoned, so the sweep removes none and a process only ever removes
// its own (on Close).
const canTellAbandoned = false

func lock(*os.File) error    { return nil }
func tryLock(*os.File) error { return nil }
