package classify

import (
	"strings"
	"testing"
)

func TestOnlineShapes(t *testing.T) {
	for v, want := range map[string]bool{
		"00:1A:2b:3C:4d:5E": true, "00-1A-2B-3C-4D-5E": true, "001a.2b3c.4d5e": true,
		"00:1A:2B-3C:4D:5E": false, // mixed separators
		"00:1A:2B:3C:4D":    false, // five octets
		"00:1G:2B:3C:4D:5E": false, // G is no hex digit
		"2001:db8::1":       false, "12:30:45": false, "001a2b3c4d5e": false,
	} {
		if got := isMAC(v); got != want {
			t.Errorf("isMAC(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]bool{
		"https://example.com/a?b=1": true, "HTTP://shop.example.co.uk": true, "ftp://files.example.org/x.zip": true,
		"http://localhost:8080/health": true, "https://example.com/a b": false, "mailto:anna@example.com": false,
		"www.example.com": false, "https://": false, "https://intranet/page": false, "file:///etc/hosts": false,
	} {
		if got := isURL(v); got != want {
			t.Errorf("isURL(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]bool{
		"jsmith": true, "@anna_svensson": true, "dark.wolf42": true, "j-doe": true, "x1": true,
		"classic-rain-jacket": false, // a URL slug
		"anna svensson":       false, "12345": false, "a": false, "anna@example.com": false,
		strings.Repeat("a", 41): false,
	} {
		if got := usernameShape(v); got != want {
			t.Errorf("usernameShape(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestOnlineColumns(t *testing.T) {
	g := newGen(47)
	macs := g.column(100, 0, func() string {
		return strings.ToUpper(g.HexString(2) + ":" + g.HexString(2) + ":" + g.HexString(2) + ":" + g.HexString(2) + ":" + g.HexString(2) + ":" + g.HexString(2))
	})
	logins := g.column(100, 0, func() string {
		return g.Pick(tGiven...)[:1] + strings.ToLower(g.Pick("smith", "berg", "nilsson", "weber")) + g.Digits(2)
	})
	urls := g.column(100, 0, func() string { return "https://shop.example.com/products/" + g.HexString(8) })
	slugs := g.column(100, 0, func() string {
		return g.Pick("classic", "mens", "vintage") + "-" + g.Pick("rain", "wool") + "-" + g.Pick("jacket", "scarf", "boots")
	})
	for _, tc := range []struct {
		name   string
		values []string
		want   string
	}{
		{"x", macs, LabelMAC},
		{"MAC Address", macs, LabelMAC},
		{"username", logins, LabelUsername},
		{"user", logins, LabelUsername},
		{"twitter_handle", logins, LabelUsername},
		{"code", logins, LabelIdentifier}, // no name: any code
		{"Handle", slugs, LabelCategory},  // Shopify product handles
		{"login_result", g.column(100, 0, func() string { return g.Pick("success", "failure", "locked") }), LabelCategory},
		{"login_method", g.column(100, 0, func() string { return g.Pick("password", "sso", "google", "saml", "magic_link") }), LabelCategory},
		{"login", g.column(60, 0, func() string { return g.Pick(tEmailsFor()...) }), LabelEmail},
		{"last_login", g.column(80, 0, func() string { return g.Instant(2023, 2024).Format("2006-01-02 15:04:05") }), LabelDatetime},
		{"url", urls, LabelURL},
		{"link", urls, LabelURL},
	} {
		r := Column(tc.name, tc.values)
		if r.Label != tc.want {
			t.Errorf("%s: label %s (%.3f, %v), want %s", tc.name, r.Label, r.Confidence, r.Evidence, tc.want)
		}
	}
	if r := Column("product_url", urls); r.Category != CategoryNone || IsPersonal(r) {
		t.Errorf("URLs are not personal: %+v", r)
	}
}

func tEmailsFor() []string {
	return []string{"anna.svensson@example.se", "erik@firma.se", "lars.nilsson@telia.com", "mikko@example.fi", "ole@example.no"}
}
