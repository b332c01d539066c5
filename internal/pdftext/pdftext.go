// Package pdftext reads PDFs back for tests: the text of every page, with
// whitespace normalised (a PDF writer places each cell and wrapped line
// as its own text object, which the reader separates with newlines), and
// the page count. It checks what a report says, not how many bytes it has.
package pdftext

import (
	"bytes"
	"io"
	"strings"
	"testing"

	pdfread "github.com/ledongthuc/pdf"
)

// Read returns the PDF's text, whitespace collapsed to single spaces, and
// its page count; the test fails when b is not a readable PDF.
func Read(t testing.TB, b []byte) (text string, pages int) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.40q", b)
	}
	r, err := pdfread.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("the PDF does not parse: %v", err)
	}
	plain, err := r.GetPlainText()
	if err != nil {
		t.Fatalf("no text in the PDF: %v", err)
	}
	raw, err := io.ReadAll(plain)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(raw)), " "), r.NumPage()
}
