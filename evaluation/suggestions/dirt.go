package suggestions

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"
)

// The dirt of the outside world, as CRM exports, spreadsheets and typing
// leave it. Each function rewrites a clean value, or reports false when it
// has nothing to do to it.

// spaces pads a value as exports and copy-paste do: a trailing space
// (the most common), a leading one, two, a tab, a no-break space from a
// web page.
func spaces(r *rand.Rand) func(string) (string, bool) {
	return func(v string) (string, bool) {
		switch r.IntN(10) {
		case 0, 1, 2, 3:
			return v + " ", true
		case 4, 5:
			return " " + v, true
		case 6:
			return v + "  ", true
		case 7:
			return " " + v + " ", true
		case 8:
			return v + "\t", true
		}
		return v + "\u00a0", true
	}
}

// recase writes a value in capitals (a legacy system, caps lock) or in
// lower case (typed in a hurry), or, for a value in capitals, in title
// case.
func recase(r *rand.Rand) func(string) (string, bool) {
	return func(v string) (string, bool) {
		if v == strings.ToUpper(v) {
			return titleCase(v), true
		}
		if r.IntN(3) == 0 {
			return strings.ToLower(v), true
		}
		return strings.ToUpper(v), true
	}
}

func titleCase(v string) string {
	rs := []rune(strings.ToLower(v))
	start := true
	for i, c := range rs {
		if start && unicode.IsLetter(c) {
			rs[i] = unicode.ToUpper(c)
		}
		start = !unicode.IsLetter(c)
	}
	return string(rs)
}

// both pads a value and changes its case, as a legacy export in capitals
// with fixed-width fields does (" STOCKHOLM  ").
func both(r *rand.Rand) func(string) (string, bool) {
	pad, cased := spaces(r), recase(r)
	return func(v string) (string, bool) {
		c, _ := cased(v)
		return pad(c)
	}
}

// keyboard neighbours on a QWERTY layout, for substitutions.
var neighbours = map[rune]string{
	'a': "qsz", 'b': "vn", 'c': "xv", 'd': "sf", 'e': "wr", 'f': "dg", 'g': "fh", 'h': "gj", 'i': "uo",
	'j': "hk", 'k': "jl", 'l': "k", 'm': "n", 'n': "bm", 'o': "ip", 'p': "o", 'q': "w", 'r': "et",
	's': "ad", 't': "ry", 'u': "yi", 'v': "cb", 'w': "qe", 'x': "zc", 'y': "tu", 'z': "x",
}

// typo makes one slip of the fingers in a word of five letters or more:
// a letter dropped, doubled, swapped with the next or hit beside.
func typo(r *rand.Rand) func(string) (string, bool) {
	return func(v string) (string, bool) {
		rs := []rune(v)
		if utf8.RuneCountInString(v) < 5 {
			return v, false
		}
		// Not the first letter: people rarely miss it.
		i := 1 + r.IntN(len(rs)-2)
		if !unicode.IsLetter(rs[i]) || !unicode.IsLetter(rs[i+1]) {
			return v, false
		}
		switch r.IntN(4) {
		case 0:
			rs = append(rs[:i:i], rs[i+1:]...)
		case 1:
			rs = append(rs[:i+1:i+1], rs[i:]...)
		case 2:
			rs[i], rs[i+1] = rs[i+1], rs[i]
		default:
			n := neighbours[unicode.ToLower(rs[i])]
			if n == "" {
				return v, false
			}
			c := rune(n[r.IntN(len(n))])
			if unicode.IsUpper(rs[i]) {
				c = unicode.ToUpper(c)
			}
			rs[i] = c
		}
		return string(rs), true
	}
}

// variants rewrites a value to one of its known other spellings (Sverige
// for Sweden, U.K. for United Kingdom).
func variants(r *rand.Rand, of map[string][]string) func(string) (string, bool) {
	return func(v string) (string, bool) {
		vs := of[v]
		if len(vs) == 0 {
			return v, false
		}
		return vs[r.IntN(len(vs))], true
	}
}

// redate writes an ISO date in one of layouts (Go layouts), picked by
// weight.
func redate(r *rand.Rand, layouts ...string) func(string) (string, bool) {
	return func(v string) (string, bool) {
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return v, false
		}
		return t.Format(layouts[r.IntN(len(layouts))]), true
	}
}

// shout writes an e-mail address as people type it into forms: capitals,
// a capitalised name and domain, spaces around.
func shout(r *rand.Rand) func(string) (string, bool) {
	return func(v string) (string, bool) {
		local, domain, ok := strings.Cut(v, "@")
		if !ok {
			return v, false
		}
		switch r.IntN(5) {
		case 0:
			return strings.ToUpper(v), true
		case 1:
			return v + " ", true
		case 2:
			return " " + titleCase(local) + "@" + domain, true
		}
		parts := strings.Split(local, ".")
		for i, p := range parts {
			parts[i] = titleCase(p)
		}
		return strings.Join(parts, ".") + "@" + titleCase(domain), true
	}
}

// rephone writes an E.164 number as people and phone systems write it in
// region (the file's home country): national forms for numbers of that
// region, international ones with spaces or the 00 prefix. A form that
// does not read back to the same number is not used.
func rephone(r *rand.Rand, region string) func(string) (string, bool) {
	return func(v string) (string, bool) {
		n, err := phonenumbers.Parse(v, "ZZ")
		if err != nil {
			return v, false
		}
		home := phonenumbers.GetRegionCodeForNumber(n) == region
		var forms []string
		intl := phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
		forms = append(forms, intl, "00"+strings.TrimPrefix(strings.ReplaceAll(intl, " ", ""), "+"))
		if home {
			nat := phonenumbers.Format(n, phonenumbers.NATIONAL)
			digits := strings.Map(func(c rune) rune {
				if c >= '0' && c <= '9' {
					return c
				}
				return -1
			}, nat)
			forms = append(forms, nat, nat, digits, strings.ReplaceAll(nat, " ", "-"))
			if region == "US" && len(digits) == 10 {
				forms = append(forms, fmt.Sprintf("%s.%s.%s", digits[:3], digits[3:6], digits[6:]),
					fmt.Sprintf("1-%s-%s-%s", digits[:3], digits[3:6], digits[6:]))
			}
		}
		f := forms[r.IntN(len(forms))]
		back, err := phonenumbers.Parse(f, region)
		if err != nil || phonenumbers.Format(back, phonenumbers.E164) != v {
			return v, false
		}
		return f, true
	}
}

// comma writes a decimal number with a decimal comma, and with dots
// between thousands now and then, as a spreadsheet in a European locale.
func comma(r *rand.Rand) func(string) (string, bool) {
	return func(v string) (string, bool) {
		whole, frac, ok := strings.Cut(v, ".")
		if !ok {
			return v, false
		}
		neg := strings.HasPrefix(whole, "-")
		whole = strings.TrimPrefix(whole, "-")
		if len(whole) > 3 && r.IntN(2) == 0 {
			var b strings.Builder
			for i, c := range whole {
				if i > 0 && (len(whole)-i)%3 == 0 {
					b.WriteByte('.')
				}
				b.WriteRune(c)
			}
			whole = b.String()
		}
		if neg {
			whole = "-" + whole
		}
		return whole + "," + frac, true
	}
}

// lose blanks a value, or writes one of the placeholders exports write.
func lose(r *rand.Rand) func(string) (string, bool) {
	tokens := []string{"", "", "", "N/A", "NULL", "-"}
	return func(v string) (string, bool) {
		return tokens[r.IntN(len(tokens))], true
	}
}
