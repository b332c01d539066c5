//go:build unix

package spool

import (
	"errors"
	"os"
	"syscall"
)

// errLocked says another open file holds the lock.
var errLocked = errors.New("locked by a live process")

// canTellAbandoned: a free flock means its process has ended.
const canTellAbandoned = true

// lock takes f's exclusive lock, waiting for it.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// tryLock takes f's exclusive lock, or returns errLocked at once.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		case !errors.Is(err, syscall.EINTR):
			return err
		}
	}
}
