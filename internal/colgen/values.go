package colgen

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Value generators. Each draws one clean value; the callers decide the mix
// of formats and add the dirt.

// EmailStyle is the range of e-mail addresses Email writes.
type EmailStyle struct {
	// Forms is how many of the local-part forms to choose among, at most
	// seven, in this order: first.last, flast, first_last12, first1984,
	// last.first+tag, first-last, first.l. The classify tests use the first
	// five, the corpus all seven.
	Forms int
	// LastBirthYear is the latest year that first1984 appends (from 1950).
	LastBirthYear int
	// Tags are the plus-address tags of last.first+tag. With a single tag
	// nothing is drawn for it.
	Tags []string
	// Domains are the domains to choose among.
	Domains []string
}

// Email writes an address for the person first last; both come already
// folded to what local parts hold (lower-case ASCII), which the callers do
// differently.
func (g *Gen) Email(first, last string, s EmailStyle) string {
	var local string
	switch g.IntN(s.Forms) {
	case 0:
		local = first + "." + last
	case 1:
		local = first[:1] + last
	case 2:
		local = first + "_" + last + strconv.Itoa(g.Between(1, 99))
	case 3:
		local = first + strconv.Itoa(g.Between(1950, s.LastBirthYear))
	case 4:
		tag := s.Tags[0]
		if len(s.Tags) > 1 {
			tag = g.Pick(s.Tags...)
		}
		local = last + "." + first + "+" + tag
	case 5:
		local = first + "-" + last
	default:
		local = first + "." + last[:1]
	}
	return local + "@" + g.Pick(s.Domains...)
}

// PAN returns a Luhn-valid card number of the given length that starts with
// the issuer prefix iin.
func (g *Gen) PAN(iin string, length int) string {
	return LuhnComplete(iin + g.Digits(length-1-len(iin)))
}

// FormatPAN writes a card number "bare", with "dash"es between blocks of
// four, or otherwise with spaces the way the card shows it: 4-6-5 for 15
// digits (Amex), 4-6-4 for 14 (Diners), else blocks of four.
func FormatPAN(p, style string) string {
	switch style {
	case "bare":
		return p
	case "dash":
		return Every4(p, "-")
	}
	switch len(p) {
	case 15:
		return Group(p, " ", 4, 6, 5)
	case 14:
		return Group(p, " ", 4, 6, 4)
	}
	return Every4(p, " ")
}

// SEPnr returns the ten digits YYMMDDNNNC of a Swedish personnummer of a
// person born on birth, or of a samordningsnummer (day + 60) when
// coordination is set. It draws the birth number NNN; the caller adds the
// separator or the century in the form it wants.
func (g *Gen) SEPnr(birth time.Time, coordination bool) string {
	day := birth.Day()
	if coordination {
		day += 60
	}
	return LuhnComplete(fmt.Sprintf("%02d%02d%02d%s", birth.Year()%100, int(birth.Month()), day, g.Digits(3)))
}

// NOFnr returns a Norwegian fødselsnummer, drawing until it gets one that
// can be issued. birth draws the date of birth and dNumber whether it is a
// D-number (day + 40), the two ways the callers differ; the individual number
// is 000–499 for births before 2000 and 500–999 from 2000.
func (g *Gen) NOFnr(birth func() time.Time, dNumber func() bool) string {
	for {
		d := birth()
		ind := g.Between(0, 499)
		if d.Year() >= 2000 {
			ind = g.Between(500, 999)
		}
		if v, ok := noFnr(d, dNumber(), ind); ok {
			return v
		}
	}
}

// EAN13 returns a 13-digit barcode number that starts with prefix, with its
// check digit.
func (g *Gen) EAN13(prefix string) string {
	s := prefix + g.Digits(12-len(prefix))
	sum := 0
	for i := range 12 {
		d := int(s[i] - '0')
		if i%2 == 1 {
			d *= 3
		}
		sum += d
	}
	return s + strconv.Itoa((10-sum%10)%10)
}

// IPv4 returns a dotted address with a first octet of 1–223 (no multicast
// or reserved class E) and a last one of 1–254 (no network or broadcast).
func (g *Gen) IPv4() string {
	return strconv.Itoa(g.Between(1, 223)) + "." + strconv.Itoa(g.IntN(256)) + "." + strconv.Itoa(g.IntN(256)) + "." + strconv.Itoa(g.Between(1, 254))
}

// Hextets returns the eight groups of a random IPv6 address in lower-case
// hex without leading zeros; callers replace the first with a real prefix
// and compress as they like.
func (g *Gen) Hextets() []string {
	parts := make([]string, 8)
	for i := range parts {
		parts[i] = strconv.FormatInt(int64(g.IntN(65536)), 16)
	}
	return parts
}

// WordPassword returns a weak, human-chosen password: one of words, a number
// 0–2025 and one of suffixes.
func (g *Gen) WordPassword(words, suffixes []string) string {
	return g.Pick(words...) + strconv.Itoa(g.Between(0, 2025)) + g.Pick(suffixes...)
}

// Bcrypt returns a bcrypt hash ($2a$, $2b$ or $2y$) with one of the costs.
func (g *Gen) Bcrypt(costs ...string) string {
	return "$2" + g.Pick("a", "b", "y") + "$" + g.Pick(costs...) + "$" + g.Chars(53, BcryptBase64)
}

// GitHubToken returns a classic GitHub personal access token.
func (g *Gen) GitHubToken() string { return "ghp_" + g.Chars(36, Alnum) }

// SlackBotToken returns a Slack bot token.
func (g *Gen) SlackBotToken() string {
	return "xoxb-" + g.Digits(11) + "-" + g.Digits(12) + "-" + g.Chars(24, Alnum)
}

// UUID writes the 32 random hex digits hex32 as a version-4 UUID, drawing
// the variant digit. The callers draw hex32 differently (Chars or
// HexString), hence the parameter.
func (g *Gen) UUID(hex32 string) string {
	h := hex32
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-" + g.Pick("8", "9", "a", "b") + h[17:20] + "-" + h[20:]
}

// Vector returns an embedding of n numbers in [-1, 1) with four decimals,
// written as a JSON array.
func (g *Gen) Vector(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.FormatFloat(g.Float(-1, 1), 'f', 4, 64)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
