package readers

import (
	"bytes"
	"io"
	"runtime"
	"sync/atomic"
)

// Pass 1 of a large JSON Lines file reads its two halves at once: while the
// first half is read from the start as always, a scan ahead collects the
// keys of the rows from the second half, starting after a newline near the
// middle. Pass 1 is the time a file is read before any value is profiled,
// so on two cores this halves it.
//
// The result is exactly that of the sequential pass, or the scan ahead is
// not used. A newline in valid JSON is never inside a string, so the scan
// ahead starts outside strings, but it may start inside a pretty-printed
// value. It is used only when (1) it read to the end of the file without an
// error or problem of any kind, and (2) its first row ends where a row of the
// sequential pass ends: from that offset on both parse the same rows. If the
// starting point lay inside a value, the scan ahead cannot even meet
// condition 1 (what it read of that value has one more closing brace than
// opening ones, outside strings), nor end its first row where that value
// ends; condition 2 is checked all the same, as it costs nothing. In every other case, as on any
// error, the sequential pass simply goes on alone, and its own errors are
// reported as before. Merging keeps first-seen order: the second half's new
// keys come after all of the first half's.
type keyScout struct {
	from     int64 // file offset where it starts: just after a newline
	firstEnd int64 // file offset where its first row ends; -1 if none
	finder   *columnFinder
	complete bool // it read to the end without any error
	stop     atomic.Bool
	done     chan struct{}
}

// scoutMinBytes is the smallest file worth a scan ahead.
var scoutMinBytes int64 = 16 << 20

// startKeyScout starts a scan ahead for a JSON Lines file, or returns nil
// when there is no second core, the file is small or no newline lies near
// its middle.
func startKeyScout(f File, format Format, opt Options) *keyScout {
	if format != FormatJSONL || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil || size < scoutMinBytes {
		return nil
	}
	mid := size / 2
	window := make([]byte, 64<<10)
	n, _ := f.ReadAt(window, mid)
	nl := bytes.IndexByte(window[:n], '\n')
	if nl < 0 {
		return nil
	}
	from := mid + int64(nl) + 1
	// newJSONRows would take a byte order mark there for the file's own.
	if bytes.HasPrefix(window[nl+1:n], utf8BOM) {
		return nil
	}
	s := &keyScout{
		from:     from,
		firstEnd: -1,
		finder:   &columnFinder{keys: newJSONKeys(nil), max: opt.MaxColumns},
		done:     make(chan struct{}),
	}
	rows, err := newJSONRows(io.NewSectionReader(f, from, size-from), format, opt, nil)
	if err != nil {
		return nil
	}
	go s.run(rows, opt)
	return s
}

func (s *keyScout) run(rows *jsonRows, opt Options) {
	defer close(s.done)
	p := &jsonParser{maxField: opt.MaxFieldBytes, sink: s.finder}
	for !s.stop.Load() {
		err := rows.next(p)
		if err == io.EOF {
			s.complete = true
			return
		}
		if err == nil {
			err = rows.problemError(p)
		}
		if err != nil {
			return
		}
		if s.firstEnd < 0 {
			s.firstEnd = s.from + rows.abs(rows.pos)
		}
	}
}

// joins waits for the scan ahead and reports whether it can stand for the
// rest of the sequential pass, whose first row ending at or past s.from
// ends at file offset end.
func (s *keyScout) joins(end int64) bool {
	<-s.done
	return s.complete && s.firstEnd == end
}

// cancel stops the scan ahead and waits for it (it stops after the row it
// is reading), so that it never reads the file after the open returns: the
// caller may close it. It is safe on nil and after joins.
func (s *keyScout) cancel() {
	if s != nil {
		s.stop.Store(true)
		<-s.done
	}
}

// merge adds the columns of o not yet in f, in o's order, and the
// non-nullness o saw. It reports false, changing nothing, when that would
// pass the column limit (the sequential pass then meets the limit itself
// and reports it where it happens).
func (f *columnFinder) merge(o *columnFinder) bool {
	added := 0
	for _, name := range o.keys.names {
		if _, ok := f.keys.index[name]; !ok {
			added++
		}
	}
	if len(f.keys.names)+added > f.max {
		return false
	}
	for i, name := range o.keys.names {
		col, ok := f.keys.index[name]
		if !ok {
			col = len(f.keys.names)
			f.keys.names = append(f.keys.names, name)
			f.keys.index[name] = col
			f.nonNull = append(f.nonNull, false)
		}
		f.nonNull[col] = f.nonNull[col] || o.nonNull[i]
	}
	return true
}
