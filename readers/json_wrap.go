package readers

import (
	"errors"
	"fmt"
	"io"
)

// Wrapped records. Public API exports put their records in an array inside
// one top-level object: {"data": [...]}, {"results": [...]}, {"response":
// {"items": [...]}}, GeoJSON's {"type": "FeatureCollection", "features":
// [...]}. Such a file is read as the rows of that array, not as one row.
//
// The rule: when the whole document is a single object, the records are
// the array, reached from the top through objects only (not through
// arrays), whose elements are mostly objects (more than half), and of
// those the one with the most elements; between arrays of the same length
// the first in the document wins. Elements of the chosen array that are not
// objects are errors at their row, as in a top-level array. A document
// with no such array (or only empty ones) is one row, as before, and so is
// each value of a stream of several (JSON Lines).
//
// Finding the array takes a pass over the whole document before the usual
// ones (see jsonReader), which then read only the array, as a JSON file of
// its own. That pass streams as they do: it holds one value at a time in
// the same buffer, each bounded by the row limit, the path of keys to the
// current object (cut at maxKeyBytes), and the best array so far as a path
// and two offsets.

// recordsArray is where a wrapped document keeps its records.
type recordsArray struct {
	path       string // dotted keys from the top-level object: response.items
	start, end int64  // file offsets of its '[' and just past its ']'
	elements   int
}

// recordsFinder walks the top-level object of a document, value by value,
// and keeps the best records array.
type recordsFinder struct {
	it    *jsonRows
	p     jsonParser // checks the values it skips; no sink
	depth int        // objects and arrays open, for encoding/json's nesting bound
	path  []byte     // dotted keys to the current object
	// deep counts the open objects whose key did not fit in path
	// (maxKeyBytes): the path of an array below them is cut (cutPath).
	deep  int
	best  recordsArray
	found bool
}

// locateRecords reports the records array of f when f holds a single JSON
// object that wraps one, and nil otherwise; buf is the buffer it read
// with, for reuse. A document it cannot walk (malformed, or a value over
// the row limit) is left to the JSON Lines reader, which reports the
// problem as it always did, unless a records array came before the
// problem: the document is then a wrapped export, likely larger than the
// JSON Lines reader takes as one row, and the error is returned, worded
// as that reader words it.
func locateRecords(f File, opt Options) (loc *recordsArray, buf []byte, err error) {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, nil, fmt.Errorf("reading file: %w", err)
	}
	// The walk reads through ReadAt, not Read: callers take the bytes Read
	// returns for the progress of the row passes (analysis reports
	// progress and estimates row counts so), which a walk over the whole
	// document first would otherwise count as done.
	it, err := newJSONRows(io.NewSectionReader(f, 0, size), FormatJSONL, opt, nil)
	if err != nil {
		return nil, nil, err
	}
	w := &recordsFinder{it: it}
	wrapped, err := w.document()
	switch {
	case err != nil && w.found:
		return nil, it.buf, err
	case err != nil || !wrapped || !w.found:
		return nil, it.buf, nil
	}
	return &w.best, it.buf, nil
}

// document walks the input and reports whether it is a single object.
func (w *recordsFinder) document() (bool, error) {
	c, ok, err := w.peek()
	if err != nil || !ok || c != '{' {
		return false, err
	}
	if err := w.object(); err != nil {
		return false, err
	}
	_, more, err := w.peek()
	return !more, err
}

// object walks the object at the input, descending into the objects and
// arrays its members hold.
func (w *recordsFinder) object() error {
	if err := w.enter(); err != nil {
		return err
	}
	c, err := w.next()
	if err != nil {
		return err
	}
	if c == '}' {
		w.it.pos++
		w.depth--
		return nil
	}
	for {
		if c != '"' {
			return w.invalid("looking for beginning of object key string")
		}
		mark, err := w.key()
		if err != nil {
			return err
		}
		if err := w.member(); err != nil {
			return err
		}
		w.leave(mark)
		if done, err := w.separator('}', "after object key:value pair"); done || err != nil {
			return err
		}
		c = w.it.buf[w.it.pos]
	}
}

// member walks the value after a key and its ':'.
func (w *recordsFinder) member() error {
	c, err := w.next()
	if err != nil {
		return err
	}
	if c != ':' {
		return w.invalid("after object key")
	}
	w.it.pos++
	if c, err = w.next(); err != nil {
		return err
	}
	switch c {
	case '{':
		return w.object()
	case '[':
		return w.array()
	}
	_, err = w.skipValue()
	return err
}

// array counts the elements of the array at the input, and of them the
// objects, and keeps it when it is the best records array so far.
func (w *recordsFinder) array() error {
	start := w.it.base + w.it.abs(w.it.pos)
	if err := w.enter(); err != nil {
		return err
	}
	elements, objects := 0, 0
	c, err := w.next()
	if err != nil {
		return err
	}
	if c == ']' {
		w.it.pos++
		w.depth--
	}
	for done := c == ']'; !done; {
		isObject, err := w.skipValue()
		if err != nil {
			return err
		}
		elements++
		if isObject {
			objects++
		}
		if done, err = w.separator(']', "after array element"); err != nil {
			return err
		}
	}
	end := w.it.base + w.it.abs(w.it.pos)
	if objects*2 > elements && (!w.found || elements > w.best.elements) {
		w.best = recordsArray{path: w.pathString(), start: start, end: end, elements: elements}
		w.found = true
	}
	return nil
}

// cutPath ends a path that was cut to maxKeyBytes.
const cutPath = "…"

// pathString is the current path, ending in cutPath when it was cut.
func (w *recordsFinder) pathString() string {
	switch {
	case w.deep == 0:
		return string(w.path)
	case len(w.path) == 0:
		return cutPath
	}
	return string(w.path) + "." + cutPath
}

// key reads the key at the input and makes it the last of the path. It
// returns the path's length before, for leave.
func (w *recordsFinder) key() (int, error) {
	var flags uint8
	end, err := w.it.parse(&w.p, func(p *jsonParser) (err error) {
		flags, err = p.str()
		return err
	})
	if err != nil {
		return 0, w.error(err)
	}
	// parse may have moved the buffered input: the key starts at pos.
	raw := w.it.buf[w.it.pos+1 : end-1]
	w.it.pos = end
	mark := len(w.path)
	if w.deep > 0 || len(w.path)+1+len(raw) > maxKeyBytes {
		// Only this much of the path is kept, as of a column's name.
		w.deep++
		return -1, nil
	}
	if mark > 0 {
		w.path = append(w.path, '.')
	}
	w.path = appendJSONText(w.path, raw, flags)
	return mark, nil
}

// leave drops the last key of the path; mark is what key returned.
func (w *recordsFinder) leave(mark int) {
	if mark < 0 {
		w.deep--
		return
	}
	w.path = w.path[:mark]
}

// skipValue checks the value at the input and moves past it, reporting
// whether it is an object.
func (w *recordsFinder) skipValue() (isObject bool, err error) {
	isObject = w.it.buf[w.it.pos] == '{'
	depth := w.depth
	end, err := w.it.parse(&w.p, func(p *jsonParser) error {
		p.depth = depth // nesting counts from the top of the document
		return p.value()
	})
	if err != nil {
		return false, w.error(err)
	}
	w.it.pos = end
	return isObject, nil
}

// enter moves past the '{' or '[' at the input.
func (w *recordsFinder) enter() error {
	if w.depth++; w.depth > maxScanDepth {
		return w.invalid("exceeded max depth")
	}
	w.it.pos++
	return nil
}

// separator reads what follows a member or an element: a comma, after
// which the input must go on, or closing, which ends the object or array
// (done).
func (w *recordsFinder) separator(closing byte, after string) (done bool, err error) {
	c, err := w.next()
	switch {
	case err != nil:
		return false, err
	case c == closing:
		w.it.pos++
		w.depth--
		return true, nil
	case c != ',':
		return false, w.invalid(after)
	}
	w.it.pos++
	_, err = w.next()
	return false, err
}

// peek returns the next byte after whitespace; ok is false at the end.
func (w *recordsFinder) peek() (c byte, ok bool, err error) {
	c, ok, err = w.it.peek()
	if err != nil {
		err = w.it.readError(err, w.it.abs(w.it.pos))
	}
	return c, ok, err
}

// next is peek inside a value, where the input must go on.
func (w *recordsFinder) next() (byte, error) {
	c, ok, err := w.peek()
	if err == nil && !ok {
		err = w.error(errTruncated)
	}
	return c, err
}

// invalid reports a syntax error at the byte at the input.
func (w *recordsFinder) invalid(context string) error {
	return w.it.invalid(w.it.abs(w.it.pos), "invalid character "+quoteChar(w.it.buf[w.it.pos])+" "+context)
}

// error words an error from parsing a value at the input, as the JSON
// Lines reader words it for its first row.
func (w *recordsFinder) error(err error) error {
	var se *jsonSyntaxError
	switch {
	case errors.As(err, &se):
		return w.it.invalid(w.it.abs(w.it.pos)+int64(se.pos), se.msg)
	case err == errTruncated:
		return malformedf("%s: the file ends in the middle of a JSON value", w.it.where(0))
	case err == errRowTooLarge:
		return unsupportedf("%s: a single value is larger than the %s limit", w.it.where(w.it.abs(w.it.pos)), humanBytes(w.it.limit))
	case err == io.EOF:
		return w.error(errTruncated)
	}
	return w.it.readError(err, w.it.abs(w.it.pos))
}

// RecordsPathOf reports where the rows of a JSON reader returned by Open
// were found when the file is a single object that wraps them, as API
// exports do ({"results": [...]}): the dotted keys of their array, such as
// "results" or "response.items", cut with "…" past 4 KiB. Of the arrays
// reached through objects whose elements are mostly objects, the rows are
// those of the longest, the first of equals. ok is false when the rows are
// not wrapped, and for other formats.
func RecordsPathOf(r Reader) (path string, ok bool) {
	var j *jsonReader
	switch r := r.(type) {
	case *jsonReader:
		j = r
	case *growingJSONReader:
		j = r.jsonReader
	}
	if j == nil || j.records == nil {
		return "", false
	}
	return j.records.path, true
}
