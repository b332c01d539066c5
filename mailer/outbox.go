package mailer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Outbox is a [Mailer] that writes each message as an RFC 5322 .eml file
// into Dir instead of sending it. Files are named
// <UTC timestamp>-<random>.eml and appear atomically (written to a hidden
// temporary file, synced, then renamed), so a reader never sees a partial
// message. Dir is created with mode 0700 if missing; files get mode 0600.
//
// An Outbox is safe for concurrent use.
type Outbox struct {
	Dir  string
	From string
}

var _ Mailer = (*Outbox)(nil)

// NewOutbox returns an Outbox writing into dir with the given From address.
func NewOutbox(dir, from string) *Outbox {
	return &Outbox{Dir: dir, From: from}
}

// Send renders m and stores it as a new .eml file in o.Dir.
func (o *Outbox) Send(ctx context.Context, m Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if o.Dir == "" {
		return fmt.Errorf("mailer: outbox directory not configured")
	}
	now := time.Now()
	env, err := buildMessage(o.From, m, now)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return fmt.Errorf("mailer: create outbox: %w", err)
	}

	name := now.UTC().Format("20060102T150405.000000000Z") + "-" + randomHex(8) + ".eml"
	// The temporary name starts with a dot and does not end in .eml so
	// that directory scanners looking for *.eml ignore it.
	tmp, err := os.CreateTemp(o.Dir, ".tmp-*.part")
	if err != nil {
		return fmt.Errorf("mailer: outbox: %w", err)
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("mailer: outbox: %w", err)
	}
	if _, err := tmp.Write(env.Data); err != nil {
		return fmt.Errorf("mailer: outbox write: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("mailer: outbox sync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mailer: outbox close: %w", err)
	}
	if err := os.Rename(tmpName, filepath.Join(o.Dir, name)); err != nil {
		return fmt.Errorf("mailer: outbox rename: %w", err)
	}
	ok = true
	// Best effort: persist the directory entry.
	if d, err := os.Open(o.Dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
