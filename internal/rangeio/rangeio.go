// Package rangeio cuts a range out of a stream that holds more than the
// range asked for, for the readers of object ranges (blob storage's
// drivers, the object sources' connectors).
package rangeio

import "io"

// Cut returns rc's stream with its first skip bytes discarded (lazily,
// on the first Read) and cut after n bytes (n < 0: to the end); Close closes
// rc. Readers of ranges use it to trim a stream that holds more than the range
// asked for: a server that answered a range request with the whole object,
// or GCS serving a gzip-encoded object decompressed and whole.
func Cut(rc io.ReadCloser, skip, n int64) io.ReadCloser {
	return &section{rc: rc, skip: skip, left: n}
}

type section struct {
	rc   io.ReadCloser
	skip int64
	left int64 // < 0: unlimited
}

func (s *section) Read(p []byte) (int, error) {
	if s.skip > 0 {
		k, err := io.CopyN(io.Discard, s.rc, s.skip)
		s.skip -= k
		if err != nil {
			return 0, err // io.EOF when the stream ends before the range
		}
	}
	if s.left == 0 {
		return 0, io.EOF
	}
	if s.left > 0 && int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.rc.Read(p)
	if s.left > 0 {
		s.left -= int64(n)
	}
	return n, err
}

func (s *section) Close() error { return s.rc.Close() }
