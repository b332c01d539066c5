package profile

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/dqs/dqs/columnar"
)

// Null tokens are text values that mean "no value": the NULL a database
// export writes, R's NA, a spreadsheet's #N/A. A cell that is one counts as
// a null everywhere (Nulls, completeness, types, formats, distinct and top
// values, duplicate rows, and the sample the classifier reads), exactly as
// a null of the format does.
//
// A cell matches a token when, with leading and trailing ASCII whitespace
// removed and ASCII letters folded to lower case, it equals the token
// (folded the same way). Non-ASCII characters must match exactly.

// DefaultNullTokens are the null tokens unless a user says otherwise. They
// are the placeholders common exports write for a missing value; "none" and
// "0", which are just as often real answers, are not among them.
var DefaultNullTokens = []string{
	"null", "nil", "na", "n/a", "#n/a", "nan", "<na>", "undefined",
	"(null)", "<null>", "[null]", "-", "--", "—", "–", "?",
}

// Limits of a list of null tokens.
const (
	MaxNullTokens     = 100
	MaxNullTokenBytes = 64
)

// NullTokens is a set of null tokens. The zero value and nil hold none.
type NullTokens struct {
	byLen [MaxNullTokenBytes + 1][]string // folded tokens by length
	lens  uint64                          // bit n-1 set when a token is n bytes long
	first [256]bool                       // first bytes of the folded tokens
}

// DefaultNulls is the set of DefaultNullTokens.
var DefaultNulls = MustNullTokens(DefaultNullTokens)

// NewNullTokens returns the set of tokens, or an error saying which token
// is unusable: blank, longer than MaxNullTokenBytes, not UTF-8, or more
// than MaxNullTokens of them. An empty list is a set without tokens.
func NewNullTokens(tokens []string) (*NullTokens, error) {
	if len(tokens) > MaxNullTokens {
		return nil, fmt.Errorf("at most %d null tokens, not %d", MaxNullTokens, len(tokens))
	}
	t := &NullTokens{}
	for _, tok := range tokens {
		folded := foldASCII(trimASCIISpace(tok))
		switch {
		case !utf8.ValidString(tok):
			return nil, fmt.Errorf("null token %q is not UTF-8 text", tok)
		case folded == "":
			return nil, fmt.Errorf("a null token cannot be blank: blank values already count as empty")
		case len(folded) > MaxNullTokenBytes:
			return nil, fmt.Errorf("null token %.20q… is longer than %d bytes", tok, MaxNullTokenBytes)
		}
		if !slices.Contains(t.byLen[len(folded)], folded) {
			t.byLen[len(folded)] = append(t.byLen[len(folded)], folded)
		}
		t.lens |= 1 << (len(folded) - 1)
		t.first[folded[0]] = true
	}
	return t, nil
}

// MustNullTokens is NewNullTokens for lists known to be valid.
func MustNullTokens(tokens []string) *NullTokens {
	t, err := NewNullTokens(tokens)
	if err != nil {
		panic(err)
	}
	return t
}

// Tokens lists the set's tokens, folded, shortest first.
func (t *NullTokens) Tokens() []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, toks := range t.byLen {
		out = append(out, toks...)
	}
	return out
}

// Match reports whether v is one of the tokens. Most values are rejected
// by their length or first byte; the others are compared with the few
// tokens of their length, without copying.
func (t *NullTokens) Match(v string) bool {
	if t == nil || len(v) == 0 || t.lens == 0 {
		return false
	}
	if isSpace(v[0]) || isSpace(v[len(v)-1]) {
		v = trimASCIISpace(v)
		if v == "" {
			return false
		}
	}
	n := len(v)
	if n > MaxNullTokenBytes || t.lens&(1<<(n-1)) == 0 || !t.first[lowerASCII(v[0])] {
		return false
	}
	for _, tok := range t.byLen[n] {
		if equalFolded(v, tok) {
			return true
		}
	}
	return false
}

// equalFolded reports whether v, its ASCII letters in lower case, is tok
// (of v's length, already folded).
func equalFolded(v, tok string) bool {
	for i := 0; i < len(tok); i++ {
		if lowerASCII(v[i]) != tok[i] {
			return false
		}
	}
	return true
}

// markNulls marks the text cells of cells that are null tokens null. It
// reads the cells' bytes in place and turns away most by their length and
// first byte, as Match does, before anything else.
func (t *NullTokens) markNulls(cells *columnar.Column) {
	if t == nil || t.lens == 0 || cells.Kind != columnar.Text {
		return
	}
	text, nulls := cells.Text, cells.Nulls
	start := int32(0)
	for r, end := range cells.Ends {
		s := start
		start = end
		n := end - s
		if n == 0 || nulls[r] {
			continue
		}
		first, last := text[s], text[end-1]
		if !isSpace(first) && !isSpace(last) &&
			(n > MaxNullTokenBytes || t.lens&(1<<(n-1)) == 0 || !t.first[lowerASCII(first)]) {
			continue
		}
		if t.Match(unsafe.String(&text[s], n)) {
			nulls[r] = true
		}
	}
}

func isSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

func trimASCIISpace(v string) string {
	return strings.Trim(v, " \t\n\r\v\f")
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func foldASCII(v string) string {
	b := []byte(v)
	for i := range b {
		b[i] = lowerASCII(b[i])
	}
	return string(b)
}
