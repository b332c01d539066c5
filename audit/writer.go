package audit

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/dqs/dqs/models"
)

// Entry is one action to record. UserID is empty when no user acted (an API
// key, a worker). Metadata is free JSON and must never hold a secret.
type Entry struct {
	OrgID    string
	UserID   string
	Event    string
	IP       string
	Metadata map[string]any
	At       time.Time
}

// Recorder records audit entries; handlers and activities depend on this.
type Recorder interface {
	Record(Entry)
}

// Flusher is a Recorder that can wait until what it recorded is written;
// callers that must log before they act (deleting raw files) use it.
type Flusher interface {
	Flush(ctx context.Context) error
}

// Appender is the store the writer appends batches to.
type Appender interface {
	AppendBatch(ctx context.Context, entries []models.AuditLog) error
}

// Writer batches entries in memory and appends them from one goroutine:
// a batch is written when it reaches maxBatch entries or maxDelay after its
// first entry. A failed write is logged and dropped (best effort, as SPEC.md
// requires); a full queue drops the entry rather than block the request.
type Writer struct {
	store    Appender
	log      *slog.Logger
	queue    chan item
	done     chan struct{}
	maxBatch int
	maxDelay time.Duration

	// mu guards closed: Record and Flush send under the read lock, Close
	// closes the queue under the write lock, so nothing ever sends on a
	// closed channel (a request outliving shutdown just drops its entry).
	mu     sync.RWMutex
	closed bool
}

type item struct {
	log   *models.AuditLog
	flush chan struct{}
}

// NewWriter starts a writer; Close stops it after writing what is queued.
func NewWriter(store Appender, log *slog.Logger) *Writer {
	w := &Writer{
		store:    store,
		log:      log,
		queue:    make(chan item, 10000),
		done:     make(chan struct{}),
		maxBatch: 200,
		maxDelay: 200 * time.Millisecond,
	}
	go w.run()
	return w
}

// Record queues e without blocking.
func (w *Writer) Record(e Entry) {
	meta := "{}"
	if len(e.Metadata) > 0 {
		b, err := json.Marshal(e.Metadata)
		if err != nil {
			w.log.Error("audit metadata not encodable; entry dropped", "event", e.Event, "org_id", e.OrgID)
			return
		}
		meta = string(b)
	}
	at := e.At
	if at.IsZero() {
		at = time.Now()
	}
	row := &models.AuditLog{OrgID: e.OrgID, Event: e.Event, IPAddress: e.IP, Metadata: meta, CreatedAt: at.UTC()}
	if e.UserID != "" {
		uid := e.UserID
		row.UserID = &uid
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.log.Error("audit writer closed; entry dropped", "event", e.Event, "org_id", e.OrgID)
		return
	}
	select {
	case w.queue <- item{log: row}:
	default:
		w.log.Error("audit queue full; entry dropped", "event", e.Event, "org_id", e.OrgID)
	}
}

// errClosed is returned by Flush and Close after Close.
var errClosed = errors.New("audit writer closed")

// Flush returns once every entry recorded before the call has been written
// (or dropped after a failed write), or when ctx ends.
func (w *Writer) Flush(ctx context.Context) error {
	ack := make(chan struct{})
	if err := w.send(ctx, item{flush: ack}); err != nil {
		return err
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *Writer) send(ctx context.Context, it item) error {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return errClosed
	}
	select {
	case w.queue <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued and stops the writer.
func (w *Writer) Close(ctx context.Context) error {
	err := w.Flush(ctx)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return errClosed
	}
	w.closed = true
	close(w.queue)
	w.mu.Unlock()
	select {
	case <-w.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

func (w *Writer) run() {
	defer close(w.done)
	var batch []models.AuditLog
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	write := func() {
		if len(batch) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := w.store.AppendBatch(ctx, batch); err != nil {
			w.log.Error("audit batch not written", "entries", len(batch), "error", err)
		}
		cancel()
		batch = batch[:0]
		timer.Stop()
	}
	for {
		select {
		case it, ok := <-w.queue:
			if !ok {
				write()
				return
			}
			if it.flush != nil {
				write()
				close(it.flush)
				continue
			}
			if len(batch) == 0 {
				timer.Reset(w.maxDelay)
			}
			batch = append(batch, *it.log)
			if len(batch) >= w.maxBatch {
				write()
			}
		case <-timer.C:
			write()
		}
	}
}
