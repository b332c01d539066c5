package quality

import (
	"fmt"
	"strconv"
	"strings"
)

// Messages: one sentence per issue, for a person reading a report. They
// quote the column's name, counts and shares, and never a value of the
// column (values, masked where personal, are in Examples), so that a message
// can go anywhere an issue goes: webhooks, audit, logs.

// about prefixes an estimated count.
func about(n int64, estimated bool) string {
	if estimated {
		return "about " + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// percent is part/whole as a percentage with one decimal, "<0.1%" for a
// share that would round to zero.
func percent(part, whole int64) string {
	s := 100 * share(part, whole)
	if s > 0 && s < 0.05 {
		return "<0.1%"
	}
	return strconv.FormatFloat(s, 'f', 1, 64) + "%"
}

// capitalise makes a sentence start upper case ("about" -> "About").
func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func duplicateRowsMessage(n, rows int64, estimated bool) string {
	return capitalise(fmt.Sprintf("%s of %d rows (%s) repeat an earlier row exactly.", about(n, estimated), rows, percent(n, rows)))
}

func missingValuesMessage(column string, n, count int64) string {
	return fmt.Sprintf("%d of %d values of %q (%s) are missing: null, empty or a null token.", n, count, column, percent(n, count))
}

func invalidFormatMessage(column, format string, n, nonEmpty int64) string {
	return fmt.Sprintf("%d of %d values of %q (%s) do not have the column's usual format %s (%s).",
		n, nonEmpty, column, percent(n, nonEmpty), format, DescribeFormat(format))
}

func invalidValueMessage(column, rule string, n, nonEmpty int64, estimated bool) string {
	return capitalise(fmt.Sprintf("%s of %d values of %q (%s) are not valid %s.",
		about(n, estimated), nonEmpty, column, percent(n, nonEmpty), rule))
}

func outsideVocabularyMessage(column string, n, nonEmpty, members int64) string {
	return fmt.Sprintf("%d of %d values of %q (%s) occur only once, outside the column's %d repeated values.",
		n, nonEmpty, column, percent(n, nonEmpty), members)
}

// inconsistentFormatMessage lists up to six layouts with their counts.
func inconsistentFormatMessage(column string, formats []formatShare, n, nonEmpty int64, estimated bool) string {
	const shown = 6
	var b strings.Builder
	for i, f := range formats[:min(len(formats), shown)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", f.format, about(f.count, estimated))
	}
	if len(formats) > shown {
		fmt.Fprintf(&b, " and %d more", len(formats)-shown)
	}
	return capitalise(fmt.Sprintf("%s of %d values of %q (%s) are not written like the rest: the column mixes %d formats, %s.",
		about(n, estimated), nonEmpty, column, percent(n, nonEmpty), len(formats), b.String()))
}

func typeMismatchMessage(column, typ string, n, nonEmpty int64) string {
	return fmt.Sprintf("%d of %d values of %q (%s) are not %s values, unlike the rest of the column.",
		n, nonEmpty, column, percent(n, nonEmpty), typ)
}

func constantColumnMessage(column string, n int64) string {
	return fmt.Sprintf("All %d values of %q are the same, so the column tells nothing apart.", n, column)
}

// outliersMessage states the bounds unless the column is personal, where
// they would tell about its values.
func outliersMessage(column string, n, nonEmpty int64, estimated bool, lo, hi float64, personal bool) string {
	bounds := ""
	if !personal {
		bounds = fmt.Sprintf(" (below %s or above %s)", strconv.FormatFloat(lo, 'g', 6, 64), strconv.FormatFloat(hi, 'g', 6, 64))
	}
	return capitalise(fmt.Sprintf("%s of %d values of %q (%s) lie far outside the range of the others%s.",
		about(n, estimated), nonEmpty, column, percent(n, nonEmpty), bounds))
}

func inconsistentCaseMessage(column string, n, nonEmpty int64, estimated bool) string {
	return capitalise(fmt.Sprintf("%s of %d values of %q (%s) are spelt in another letter case than the same value elsewhere in the column.",
		about(n, estimated), nonEmpty, column, percent(n, nonEmpty)))
}

// DescribeFormat spells a format signature (see profile.Signatures) out in
// words: "A+-9+" -> `letters, "-", digits`.
func DescribeFormat(sig string) string {
	var parts []string
	for rest := sig; rest != ""; {
		switch {
		case strings.HasPrefix(rest, "A+"):
			parts, rest = append(parts, "letters"), rest[2:]
		case strings.HasPrefix(rest, "9+"):
			parts, rest = append(parts, "digits"), rest[2:]
		case strings.HasPrefix(rest, "X+"):
			parts, rest = append(parts, "letters and digits"), rest[2:]
		case strings.HasPrefix(rest, " "):
			parts, rest = append(parts, "a space"), rest[1:]
		case strings.HasPrefix(rest, "…"):
			parts, rest = append(parts, "and more"), rest[len("…"):]
		default:
			r := []rune(rest)[0]
			parts, rest = append(parts, strconv.Quote(string(r))), rest[len(string(r)):]
		}
	}
	if len(parts) == 0 {
		return "empty"
	}
	return strings.Join(parts, ", ")
}
