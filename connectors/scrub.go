package connectors

import (
	"net/url"
	"regexp"
	"strings"
)

// Redacted replaces what Scrub removes from a message.
const Redacted = "[redacted]"

// Scrub returns err with a message safe to show a user: every secret
// (a password, a private key, a DSN, ...) is replaced by Redacted, in the
// forms a driver may echo it (as given, URL-escaped, quoted in a
// keyword/value DSN, each line of a multi-line key), and so are the parts
// of the message that look like credentials whatever their value: the
// password of a URL (scheme://user:password@host), a password=, secret=
// or private_key= setting, and PEM private key blocks. A message that
// still carries a connection URL or a keyword/value DSN is then dropped
// whole for Redacted, since a DSN may hold settings we do not know to be
// secret.
//
// The result still wraps err, so errors.Is and errors.As see the
// sentinels (ErrConnect, ...) and causes it carries; only its Error()
// changes. Scrub returns nil for a nil err, and err itself when nothing
// needed scrubbing. Secrets shorter than 3 bytes are matched too, at the
// price of mangling the message: a credential is never that short on
// purpose.
func Scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := ScrubString(msg, secrets...)
	if clean == msg {
		return err
	}
	return &scrubbed{msg: clean, err: err}
}

// ScrubString is Scrub for a message.
func ScrubString(msg string, secrets ...string) string {
	for _, s := range secretForms(secrets) {
		msg = strings.ReplaceAll(msg, s, Redacted)
	}
	msg = pemBlock.ReplaceAllString(msg, Redacted)
	msg = urlPassword.ReplaceAllString(msg, "${1}"+Redacted+"@")
	msg = secretSetting.ReplaceAllString(msg, "${1}="+Redacted)
	if dsnURL.MatchString(msg) || dsnKeywords.MatchString(msg) {
		return Redacted
	}
	return msg
}

// secretForms lists the spellings of the secrets worth replacing, longest
// first so that a secret containing another is replaced whole.
func secretForms(secrets []string) []string {
	var forms []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			forms = append(forms, s)
		}
	}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		add(s)
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		add(url.UserPassword("u", s).String()[2:]) // userinfo escaping
		add(strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s))
		add(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s))
		// A multi-line secret (a PEM key, a service account JSON) may
		// be echoed a line at a time.
		if strings.Contains(s, "\n") {
			for _, line := range strings.Split(s, "\n") {
				if line = strings.TrimSpace(line); len(line) >= 8 {
					add(line)
				}
			}
		}
	}
	// Longest first.
	for i := 1; i < len(forms); i++ {
		for j := i; j > 0 && len(forms[j]) > len(forms[j-1]); j-- {
			forms[j], forms[j-1] = forms[j-1], forms[j]
		}
	}
	return forms
}

var (
	pemBlock = regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`)
	// scheme://user:password@ keeps the user.
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@]*:)[^\s@/]*@`)
	// password=..., quoted or not.
	secretSetting = regexp.MustCompile(`(?i)\b((?:password|passwd|pwd|secret|secret_access_key|private_key|sslpassword|token)\s*)=\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s,;&]*)`)
	// What is left of a DSN.
	dsnURL      = regexp.MustCompile(`(?i)\b(postgres|postgresql|snowflake|mysql)://`)
	dsnKeywords = regexp.MustCompile(`(?i)\b(host|hostaddr)=\S+.*\b(user|dbname|password)=`)
)

type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }
