package scanner

import (
	"strings"

	"github.com/dqs/dqs/classify"
)

// labelPatterns are the regular expressions a column's values are expected
// to match once the sample says what the column holds. They use only what
// PostgreSQL (POSIX ~), BigQuery (RE2) and Snowflake (POSIX ERE) all read
// alike: bracket classes, anchors, counted repetition, no \d or \w. They
// test the shape of a value, not its checksum: the full validators
// (mod-97, Luhn) run on the sample, where a scan reads values.
var labelPatterns = map[string]string{
	classify.LabelEmail:      `^[^@[:space:]]+@[^@[:space:]]+[.][A-Za-z]{2,}$`,
	classify.LabelPhone:      `^[+(]?[0-9][0-9 ().-]{5,19}$`,
	classify.LabelIBAN:       `^[A-Z]{2}[0-9]{2}[A-Za-z0-9 ]{10,32}$`,
	classify.LabelIP:         `^[0-9]{1,3}([.][0-9]{1,3}){3}$`,
	classify.LabelMAC:        `^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$`,
	classify.LabelURL:        `^[A-Za-z][A-Za-z0-9+.-]*://[^[:space:]]+$`,
	classify.LabelPostalCode: `^[A-Za-z0-9][A-Za-z0-9 -]{1,9}$`,
}

// layoutTokens are the tokens of a readable date layout
// (classify.FormatCount.Format: "DD/MM/YYYY", "YYYY-MM-DD hh:mm:ss") and
// the pattern of each; longer tokens first.
var layoutTokens = []struct{ token, pattern string }{
	{"YYYY", "[0-9]{4}"}, {"YY", "[0-9]{2}"},
	{"MM", "[0-9]{2}"}, {"DD", "[0-9]{2}"},
	{"hh", "[0-9]{1,2}"}, {"mm", "[0-9]{2}"}, {"ss", "[0-9]{2}"},
	{".fff", "([.][0-9]{1,9})?"},
	{"D", "[0-9]{1,2}"}, {"M", "[0-9]{1,2}"}, {"h", "[0-9]{1,2}"},
}

// layoutPattern turns a readable date layout into an anchored pattern; ok
// is false when the layout has a part a pattern would guess at (month
// names, time zones).
func layoutPattern(layout string) (string, bool) {
	var b strings.Builder
	b.WriteByte('^')
next:
	for rest := layout; rest != ""; {
		for _, t := range layoutTokens {
			if strings.HasPrefix(rest, t.token) {
				b.WriteString(t.pattern)
				rest = rest[len(t.token):]
				continue next
			}
		}
		switch c := rest[0]; {
		case c == ' ':
			b.WriteString("[ T]")
		case c == '/' || c == '-' || c == ':' || c == ',' || c == 'T':
			b.WriteByte(c)
		case c == '.':
			b.WriteString("[.]")
		default:
			return "", false
		}
		rest = rest[1:]
	}
	b.WriteByte('$')
	return b.String(), true
}

// FormatPattern is the pattern a column's values are expected to match,
// from its classification on the sample: the label's shape, or for dates
// the layout most of the sample is written in. ok is false when there is
// none to check.
func FormatPattern(cls classify.Result) (string, bool) {
	if p, ok := labelPatterns[cls.Label]; ok {
		return p, true
	}
	switch cls.Label {
	case classify.LabelDate, classify.LabelDatetime, classify.LabelDateOfBirth:
		if cls.Conformance != nil && len(cls.Conformance.Formats) > 0 {
			return layoutPattern(cls.Conformance.Formats[0].Format)
		}
	}
	return "", false
}
