package classify

import (
	"net/url"
	"strings"
)

// ---------------------------------------------------------------------------
// Online identifiers and web addresses

// isMAC matches a 48-bit hardware address in the IEEE form (six hex octets
// separated by colons or by dashes, one separator throughout) or Cisco's
// dotted form aabb.ccdd.eeff.
func isMAC(v string) bool {
	switch len(v) {
	case 17:
		sep := v[2]
		if sep != ':' && sep != '-' {
			return false
		}
		for i := 0; i < 17; i += 3 {
			if !isHex(v[i:i+2]) || i+2 < 17 && v[i+2] != sep {
				return false
			}
		}
		return true
	case 14:
		return v[4] == '.' && v[9] == '.' && isHex(v[:4]) && isHex(v[5:9]) && isHex(v[10:])
	}
	return false
}

func detMAC(c *column) *cand {
	m := c.count(func(it item) bool { return isMAC(it.v) })
	if m == 0 {
		return nil
	}
	return c.fewDistinct(&cand{label: LabelMAC, matches: m, strength: 0.95, tier: 1, prio: prioPersonal + 3,
		what: "are MAC addresses (six hex octets, or Cisco aabb.ccdd.eeff)"})
}

// isURL matches an absolute http, https or ftp URL with a host.
func isURL(v string) bool {
	if len(v) < 10 || strings.ContainsAny(v, " \t\n") {
		return false
	}
	scheme, _, ok := strings.Cut(v, "://")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "ftp":
	default:
		return false
	}
	u, err := url.Parse(v)
	if err != nil || u.Hostname() == "" {
		return false
	}
	h := u.Hostname()
	return strings.Contains(h, ".") || h == "localhost"
}

func detURL(c *column) *cand {
	m := c.count(func(it item) bool { return isURL(it.v) })
	if m == 0 {
		return nil
	}
	return &cand{label: LabelURL, matches: m, strength: 0.95, tier: 1, prio: prioSpecific + 1,
		what: "are http, https or ftp URLs"}
}

// usernameShape reports whether v is written like a login name or handle:
// 2–40 characters of letters, digits, dots, dashes and underscores, an
// optional leading @, and at least one letter. Three or more words joined
// by dashes are a URL slug (classic-rain-jacket), not a login.
func usernameShape(v string) bool {
	v = strings.TrimPrefix(v, "@")
	if len(v) < 2 || len(v) > 40 || !hasLetter(v) || strings.Count(v, "-") >= 2 {
		return false
	}
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
		default:
			return false
		}
	}
	return true
}

// minUsernames is how many distinct values a column of 30 or more must
// hold to be usernames: a few words repeated under a login name are its
// outcomes or methods (login_result: success, failure; login_method: sso).
const minUsernames = 8

// detUsername needs the column name: a short token without spaces could be
// any code. Dates (last_login) and numbers are no usernames.
func detUsername(c *column) *cand {
	if c.n >= 30 && c.distinct() < minUsernames {
		return nil
	}
	return detNamed(c, LabelUsername, func(v string) bool {
		_, _, isNum := parseNumber(v)
		return !isNum && !isUUID(v) && !isHexDigest(v) && usernameShape(v)
	}, "are login names or handles (short tokens without spaces)")
}
