package classify

import (
	"sort"
	"strings"
)

// ---------------------------------------------------------------------------
// Credentials

// selfIdentifyingHash recognises password hash formats that carry their
// algorithm: bcrypt, argon2, scrypt, sha-crypt, yescrypt, PBKDF2 (Django,
// passlib) and LDAP {SSHA}.
func selfIdentifyingHash(v string) bool {
	switch {
	case len(v) == 60 && (strings.HasPrefix(v, "$2a$") || strings.HasPrefix(v, "$2b$") || strings.HasPrefix(v, "$2y$") || strings.HasPrefix(v, "$2x$")):
		return isDigit(v[4]) && isDigit(v[5]) && v[6] == '$' && isTokenChars(v[7:])
	case strings.HasPrefix(v, "$argon2id$"), strings.HasPrefix(v, "$argon2i$"), strings.HasPrefix(v, "$argon2d$"):
		return strings.Count(v, "$") >= 4
	case strings.HasPrefix(v, "$scrypt$"), strings.HasPrefix(v, "$7$"), strings.HasPrefix(v, "$y$"),
		strings.HasPrefix(v, "$5$"), strings.HasPrefix(v, "$6$"), strings.HasPrefix(v, "$1$"),
		strings.HasPrefix(v, "$pbkdf2"):
		return strings.Count(v, "$") >= 3 && len(v) >= 20
	case strings.HasPrefix(v, "pbkdf2_sha256$"), strings.HasPrefix(v, "pbkdf2_sha1$"), strings.HasPrefix(v, "argon2$"), strings.HasPrefix(v, "bcrypt_sha256$"):
		return strings.Count(v, "$") >= 2
	case strings.HasPrefix(v, "{SSHA}"), strings.HasPrefix(v, "{SSHA256}"), strings.HasPrefix(v, "{SSHA512}"), strings.HasPrefix(v, "{SHA}"), strings.HasPrefix(v, "{CRYPT}"):
		return len(v) > 12
	}
	return false
}

func isHexDigest(v string) bool {
	switch len(v) {
	case 32, 40, 64, 128:
		return isHex(v)
	}
	return false
}

func detPasswordHash(c *column) *cand {
	pwHint := c.hint(LabelPassword) || c.hint(LabelPasswordHash)
	selfID := 0.0
	m := c.count(func(it item) bool {
		if selfIdentifyingHash(it.v) {
			selfID += float64(it.c)
			return true
		}
		return pwHint && isHexDigest(it.v)
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelPasswordHash, matches: m, strength: 0.9, tier: 1, prio: prioPersonal + 2,
		what: "are password hashes"}
	if selfID >= 0.5*m {
		k.strength = 0.95
		k.extra = append(k.extra, "hash formats name their algorithm (bcrypt, argon2, scrypt, PBKDF2, sha-crypt)")
	} else {
		k.extra = append(k.extra, "hex digests in a column named like a password")
	}
	return k
}

func detPassword(c *column) *cand {
	if !c.hint(LabelPassword) {
		return nil
	}
	pts := c.parsedTimes()
	m := 0.0
	for i, it := range c.items {
		v := it.v
		if len(v) < 4 || len(v) > 128 || selfIdentifyingHash(v) || isHexDigest(v) || pts[i].k != notTime {
			continue
		}
		if shannonEntropy(v) < 1.0 {
			continue // masked ("********") or placeholder values
		}
		if _, isBool := booleanVocab[it.lower]; isBool {
			continue
		}
		if _, dec, isNum := parseNumber(v); isNum && dec > 0 {
			continue // rates and scores (pass_rate); digit-only PINs stay
		}
		if strings.Count(v, " ") > 5 || strings.ContainsAny(v, "\n\t") {
			continue
		}
		m += float64(it.c)
	}
	if m == 0 {
		return nil
	}
	// People choose different passwords: a few values repeated over many
	// rows are outcomes (PASS/FAIL) or defaults, not passwords.
	if c.n >= 20 && c.distinct()*2 < c.n {
		return nil
	}
	return &cand{label: LabelPassword, matches: m, strength: 0.9, tier: 1, prio: prioPersonal + 1,
		what: "look like plaintext passwords (not hashes)"}
}

// secretPrefixes are issuer prefixes of API keys and tokens.
var secretPrefixes = []struct {
	prefix, what string
	minLen       int
}{
	{"sk_live_", "Stripe", 20}, {"sk_test_", "Stripe", 20}, {"rk_live_", "Stripe", 20}, {"rk_test_", "Stripe", 20},
	{"pk_live_", "Stripe", 20}, {"pk_test_", "Stripe", 20}, {"whsec_", "Stripe", 20},
	{"AKIA", "AWS", 20}, {"ASIA", "AWS", 20},
	{"ghp_", "GitHub", 36}, {"gho_", "GitHub", 36}, {"ghu_", "GitHub", 36}, {"ghs_", "GitHub", 36},
	{"ghr_", "GitHub", 36}, {"github_pat_", "GitHub", 40},
	{"xoxb-", "Slack", 20}, {"xoxp-", "Slack", 20}, {"xoxa-", "Slack", 20}, {"xoxr-", "Slack", 20}, {"xoxs-", "Slack", 20},
	{"glpat-", "GitLab", 24}, {"AIza", "Google", 39}, {"sk-", "OpenAI/Anthropic", 30}, {"SG.", "SendGrid", 60},
	{"npm_", "npm", 40}, {"hf_", "Hugging Face", 30}, {"shpat_", "Shopify", 38}, {"shpss_", "Shopify", 38},
	{"dop_v1_", "DigitalOcean", 40}, {"pypi-", "PyPI", 50},
}

func secretPrefix(v string) (string, bool) {
	for _, p := range secretPrefixes {
		if len(v) >= p.minLen && strings.HasPrefix(v, p.prefix) && isTokenChars(v[len(p.prefix):]) && shannonEntropy(v[len(p.prefix):]) >= 3.0 {
			if p.prefix == "AKIA" || p.prefix == "ASIA" {
				if len(v) != 20 || !isUpperAlnum(v) {
					continue
				}
			}
			return p.what, true
		}
	}
	if strings.HasPrefix(v, "eyJ") && strings.Count(v, ".") == 2 && len(v) > 30 && isTokenChars(v) {
		return "JWT", true
	}
	if strings.HasPrefix(v, "-----BEGIN") && strings.Contains(v, "PRIVATE KEY") {
		return "private key", true
	}
	return "", false
}

func isUpperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(isDigit(s[i]) || s[i] >= 'A' && s[i] <= 'Z') {
			return false
		}
	}
	return true
}

func detSecret(c *column) *cand {
	hint := c.hint(LabelSecret)
	kinds := map[string]bool{}
	prefixed := 0.0
	m := c.count(func(it item) bool {
		if w, ok := secretPrefix(it.v); ok {
			kinds[w] = true
			prefixed += float64(it.c)
			return true
		}
		return hint && len(it.v) >= 16 && len(it.v) <= 512 && isTokenChars(it.v) && shannonEntropy(it.v) >= 3.0
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelSecret, matches: m, strength: 0.9, tier: 1, prio: prioPersonal + 2,
		what: "are high-entropy secrets or API keys"}
	if prefixed >= 0.5*m {
		k.strength = 0.95
		var ks []string
		for w := range kinds {
			ks = append(ks, w)
		}
		sort.Strings(ks)
		k.extra = append(k.extra, "known key prefixes: "+strings.Join(ks, ", "))
	}
	return k
}
