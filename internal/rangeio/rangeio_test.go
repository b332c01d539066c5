package rangeio

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func TestCut(t *testing.T) {
	const s = "0123456789"
	for _, c := range []struct {
		skip, n int64
		want    string
	}{
		{0, -1, s}, {0, 4, "0123"}, {3, 4, "3456"}, {8, 10, "89"}, {7, -1, "789"},
		{10, -1, ""}, {12, 3, ""}, {2, 0, ""},
	} {
		rc := &closeCounter{Reader: iotest.OneByteReader(strings.NewReader(s))}
		r := Cut(rc, c.skip, c.n)
		got, err := io.ReadAll(r)
		if err != nil || string(got) != c.want {
			t.Errorf("Cut(%d, %d) = %q, %v; want %q", c.skip, c.n, got, err, c.want)
		}
		if n, err := r.Read(make([]byte, 4)); n != 0 || err != io.EOF {
			t.Errorf("Cut(%d, %d): Read after end = %d, %v", c.skip, c.n, n, err)
		}
		r.Close()
		if rc.closed != 1 {
			t.Errorf("Cut(%d, %d): underlying Close called %d times", c.skip, c.n, rc.closed)
		}
	}
}
