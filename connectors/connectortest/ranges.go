package connectortest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/dqs/dqs/connectors"
)

// RangeData is the object "r.csv" CheckRangeRequests reads; "empty.csv"
// is stored empty beside it.
var RangeData = []byte("0123456789abcdefghij")

// RangeExchange is one object read as the store saw it: the Range header
// sent and the status answered.
type RangeExchange struct {
	Range  string
	Status int
}

// RangeRecorder records the object reads passing through a store's
// handler.
type RangeRecorder struct {
	mu   sync.Mutex
	seen []RangeExchange
}

// RecordRanges wraps a store's handler; isRead tells an object read
// (a GET of an object's bytes) from the other calls.
func RecordRanges(h http.Handler, isRead func(*http.Request) bool) (http.Handler, *RangeRecorder) {
	rr := &RangeRecorder{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if r.Method == http.MethodGet && isRead(r) {
			rr.mu.Lock()
			rr.seen = append(rr.seen, RangeExchange{r.Header.Get("Range"), rec.Code})
			rr.mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}), rr
}

func (rr *RangeRecorder) take() []RangeExchange {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	out := rr.seen
	rr.seen = nil
	return out
}

// CheckRangeRequests opens ranges of "r.csv" (RangeData) and "empty.csv"
// and checks the bytes read and the one request each sent: the Range
// header and the status the store answered (416 past the end, read as an
// empty stream; a length-0 read probes one byte for the object's
// existence).
func CheckRangeRequests(t *testing.T, s connectors.ObjectSource, rr *RangeRecorder) {
	t.Helper()
	for _, c := range []struct {
		key            string
		offset, length int64
		want           string
		rng            string
		status         int
	}{
		{"r.csv", 0, -1, string(RangeData), "", http.StatusOK},
		{"r.csv", 5, 10, "56789abcde", "bytes=5-14", http.StatusPartialContent},
		{"r.csv", 15, -1, "fghij", "bytes=15-", http.StatusPartialContent},
		{"r.csv", 15, 100, "fghij", "bytes=15-114", http.StatusPartialContent},
		{"r.csv", 20, -1, "", "bytes=20-", http.StatusRequestedRangeNotSatisfiable},
		{"r.csv", 25, 3, "", "bytes=25-27", http.StatusRequestedRangeNotSatisfiable},
		{"r.csv", 3, 0, "", "bytes=3-3", http.StatusPartialContent}, // the existence probe
		{"r.csv", 1 << 62, 1 << 62, "", "bytes=4611686018427387904-", http.StatusRequestedRangeNotSatisfiable},
		{"empty.csv", 0, -1, "", "", http.StatusOK},
		{"empty.csv", 0, 4, "", "bytes=0-3", http.StatusRequestedRangeNotSatisfiable},
	} {
		rr.take()
		rc, err := s.Open(t.Context(), c.key, c.offset, c.length)
		if err != nil {
			t.Errorf("Open(%q, %d, %d): %v", c.key, c.offset, c.length, err)
			continue
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(got) != c.want {
			t.Errorf("Open(%q, %d, %d) read %q, %v; want %q", c.key, c.offset, c.length, got, err, c.want)
		}
		if seen := rr.take(); len(seen) != 1 || seen[0] != (RangeExchange{c.rng, c.status}) {
			t.Errorf("Open(%q, %d, %d) sent %+v, want one GET with Range %q answered %d", c.key, c.offset, c.length, seen, c.rng, c.status)
		}
	}
}
