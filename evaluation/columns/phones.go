package columns

import (
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/dqs/dqs/internal/colgen"
)

// ---------------------------------------------------------------------------
// Phones

// phonePlan describes how one country's numbers are drawn and written.
type phonePlan struct {
	region, cc string
	nsn        func(g *gen) string // national significant number
	national   func(g *gen, nsn string) string
	intl       func(g *gen, nsn string) string
}

var phonePlans = map[string]phonePlan{
	"SE": {"SE", "46",
		func(g *gen) string {
			switch g.IntN(5) {
			case 0:
				return "8" + g.Digits(g.Between(7, 8))
			case 1:
				return g.Pick("31", "40", "18", "13") + g.Digits(g.Between(6, 7))
			default:
				return "7" + g.Pick("0", "2", "3", "6", "9") + g.Digits(7)
			}
		},
		func(g *gen, n string) string {
			area := 2
			if n[0] == '8' {
				area = 1
			}
			rest := n[area:]
			switch g.IntN(4) {
			case 0:
				return "0" + n
			case 1:
				return "0" + n[:area] + " " + colgen.Group(rest, " ", 3, 2, 2)
			default:
				return "0" + n[:area] + "-" + colgen.Group(rest, " ", 3, 2, 2)
			}
		},
		func(g *gen, n string) string {
			if g.Chance(0.5) {
				return "+46" + n
			}
			if n[0] == '8' {
				return "+46 8 " + colgen.Group(n[1:], " ", 3, 2, 2)
			}
			return "+46 " + n[:2] + " " + colgen.Group(n[2:], " ", 3, 2, 2)
		}},
	"DE": {"DE", "49",
		func(g *gen) string {
			if g.Chance(0.5) {
				return g.Pick("151", "152", "157", "160", "170", "171", "172", "176", "178") + g.Digits(g.Between(7, 8))
			}
			return g.Pick("30", "40", "89", "221", "69", "711") + g.Digits(g.Between(6, 8))
		},
		func(g *gen, n string) string {
			area := 3
			if n[0] != '1' && len(n) > 0 {
				area = len(n) - 7
				if area < 2 {
					area = 2
				}
				if strings.HasPrefix(n, "30") || strings.HasPrefix(n, "40") || strings.HasPrefix(n, "89") || strings.HasPrefix(n, "69") {
					area = 2
				}
			}
			switch g.IntN(4) {
			case 0:
				return "0" + n[:area] + "/" + n[area:]
			case 1:
				return "(0" + n[:area] + ") " + n[area:]
			case 2:
				return "0" + n[:area] + "-" + n[area:]
			default:
				return "0" + n[:area] + " " + n[area:]
			}
		},
		func(g *gen, n string) string {
			area := 3
			if n[0] != '1' {
				area = 2
			}
			switch g.IntN(3) {
			case 0:
				return "+49 (0)" + n[:area] + " " + n[area:]
			case 1:
				return "+49" + n
			default:
				return "+49 " + n[:area] + " " + n[area:]
			}
		}},
	"GB": {"GB", "44",
		func(g *gen) string {
			switch g.IntN(3) {
			case 0:
				return "20" + g.Pick("7", "8", "3") + g.Digits(7)
			case 1:
				return g.Pick("161", "121", "113", "131", "117") + g.Pick("2", "3", "4", "5", "6", "7", "8") + g.Digits(6)
			default:
				return "7" + g.Pick("4", "5", "7", "8", "9") + g.Digits(8)
			}
		},
		func(g *gen, n string) string {
			switch {
			case strings.HasPrefix(n, "20"):
				return "0" + colgen.Group(n, " ", 2, 4, 4)
			case n[0] == '7':
				if g.Chance(0.2) {
					return "0" + n
				}
				return "0" + colgen.Group(n, " ", 4, 6)
			default:
				if g.Chance(0.3) {
					return "(0" + n[:3] + ") " + colgen.Group(n[3:], " ", 3, 4)
				}
				return "0" + colgen.Group(n, " ", 3, 3, 4)
			}
		},
		func(g *gen, n string) string {
			if g.Chance(0.3) {
				return "+44" + n
			}
			grouped := colgen.Group(n, " ", 3, 3, 4)
			switch {
			case n[0] == '7':
				grouped = colgen.Group(n, " ", 4, 6)
			case strings.HasPrefix(n, "20"):
				grouped = colgen.Group(n, " ", 2, 4, 4)
			}
			if g.Chance(0.3) {
				return "+44 (0)" + grouped
			}
			return "+44 " + grouped
		}},
	"US": {"US", "1",
		func(g *gen) string {
			npa := g.Pick("212", "415", "617", "312", "305", "206", "512", "646", "202", "718", "303", "404", "503", "602", "713", "919", "612", "801")
			for {
				nxx := strconv.Itoa(g.Between(2, 9)) + g.Digits(2)
				if nxx != "555" && nxx[1:] != "11" {
					return npa + nxx + g.Digits(4)
				}
			}
		},
		func(g *gen, n string) string {
			switch g.IntN(5) {
			case 0, 1:
				return "(" + n[:3] + ") " + n[3:6] + "-" + n[6:]
			case 2:
				return n[:3] + "-" + n[3:6] + "-" + n[6:]
			case 3:
				return n[:3] + "." + n[3:6] + "." + n[6:]
			default:
				return "1-" + n[:3] + "-" + n[3:6] + "-" + n[6:]
			}
		},
		func(g *gen, n string) string {
			if g.Chance(0.5) {
				return "+1" + n
			}
			return "+1 " + n[:3] + " " + n[3:6] + " " + n[6:]
		}},
	"FR": {"FR", "33",
		func(g *gen) string { return g.Pick("6", "7", "1", "2", "3", "4", "5", "6") + g.Digits(8) },
		func(g *gen, n string) string {
			switch g.IntN(3) {
			case 0:
				return "0" + colgen.Group(n, ".", 1, 2, 2, 2, 2)
			case 1:
				return "0" + n
			default:
				return "0" + colgen.Group(n, " ", 1, 2, 2, 2, 2)
			}
		},
		func(g *gen, n string) string {
			if g.Chance(0.3) {
				return "+33 (0)" + colgen.Group(n, " ", 1, 2, 2, 2, 2)
			}
			return "+33 " + colgen.Group(n, " ", 1, 2, 2, 2, 2)
		}},
	"FI": {"FI", "358",
		func(g *gen) string {
			if g.Chance(0.3) {
				return "9" + g.Digits(7)
			}
			return g.Pick("40", "41", "44", "45", "46", "50") + g.Digits(7)
		},
		func(g *gen, n string) string {
			if n[0] == '9' {
				return "09 " + colgen.Group(n[1:], " ", 4, 3)
			}
			if g.Chance(0.4) {
				return "0" + n[:2] + "-" + n[2:]
			}
			return "0" + n[:2] + " " + colgen.Group(n[2:], " ", 3, 4)
		},
		func(g *gen, n string) string {
			if n[0] == '9' {
				return "+358 9 " + n[1:]
			}
			return "+358 " + n[:2] + " " + n[2:]
		}},
	"NO": {"NO", "47",
		func(g *gen) string { return g.Pick("4", "9", "9", "2") + g.Digits(7) },
		func(g *gen, n string) string {
			if n[0] == '2' {
				return colgen.Group(n, " ", 2, 2, 2, 2)
			}
			return colgen.Group(n, " ", 3, 2, 3)
		},
		func(g *gen, n string) string {
			if g.Chance(0.5) {
				return "+47" + n
			}
			return "+47 " + colgen.Group(n, " ", 3, 2, 3)
		}},
	"DK": {"DK", "45",
		func(g *gen) string { return g.Pick("2", "3", "4", "5", "6", "7", "8") + g.Digits(7) },
		func(g *gen, n string) string { return colgen.Group(n, " ", 2, 2, 2, 2) },
		func(g *gen, n string) string {
			if g.Chance(0.4) {
				return "+45" + n
			}
			return "+45 " + colgen.Group(n, " ", 2, 2, 2, 2)
		}},
}

// phone returns a number of country valid under libphonenumber, written
// nationally or internationally as share intl says (real columns mix both).
func (g *gen) phone(country string, intl float64) string {
	p := phonePlans[country]
	for {
		n := p.nsn(g)
		var v string
		if g.Chance(intl) {
			v = p.intl(g, n)
		} else {
			v = p.national(g, n)
		}
		if validPhone(v, p.region) {
			return v
		}
	}
}

func validPhone(v, region string) bool {
	n, err := phonenumbers.Parse(v, region)
	return err == nil && phonenumbers.IsValidNumber(n)
}

// e164 is a number of a random country without any separator.
func (g *gen) e164(countries ...string) string {
	p := phonePlans[g.Pick(countries...)]
	for {
		v := "+" + p.cc + p.nsn(g)
		if validPhone(v, p.region) {
			return v
		}
	}
}
