package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// --- passwords -------------------------------------------------------------

func TestPasswordHashRoundTrip(t *testing.T) {
	const pw = "correct horse battery staple"
	h1, err := HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h1, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not in the expected argon2id encoding", h1)
	}
	if h1 == h2 {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	if strings.Split(h1, "$")[4] == strings.Split(h2, "$")[4] {
		t.Fatal("two hashes share a salt")
	}
	if strings.Contains(h1, pw) {
		t.Fatal("the hash contains the password")
	}
	for _, tc := range []struct {
		name, hash, pw string
		want           bool
	}{
		{"right password, first hash", h1, pw, true},
		{"right password, second hash", h2, pw, true},
		{"wrong password", h1, "correct horse battery stapl", false},
		{"case differs", h1, "Correct horse battery staple", false},
		{"empty password", h1, "", false},
		{"password too long", h1, strings.Repeat("a", maxPasswordLength+1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := CheckPassword(tc.hash, tc.pw)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.want {
				t.Fatalf("CheckPassword = %v, want %v", ok, tc.want)
			}
		})
	}
	CheckDummyPassword(pw) // must not panic
}

func TestCheckPasswordMalformedHash(t *testing.T) {
	good, err := HashPassword("a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, "$")
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	for _, tc := range []struct{ name, hash string }{
		{"empty", ""},
		{"plain text", "a long enough password"},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"argon2i", with(1, "argon2i")},
		{"too few parts", strings.Join(parts[:5], "$")},
		{"too many parts", good + "$extra"},
		{"other version", with(2, "v=16")},
		{"garbage version", with(2, "version")},
		{"garbage parameters", with(3, "m=lots,t=2,p=1")},
		{"salt not base64", with(4, "!!not base64!!")},
		{"hash not base64", with(5, "!!not base64!!")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := CheckPassword(tc.hash, "a long enough password")
			if ok || err == nil {
				t.Fatalf("CheckPassword(%q) = %v, %v; want false and an error", tc.hash, ok, err)
			}
		})
	}
}

// TestCheckPasswordDegenerateParameters: a stored hash that parses but names
// impossible argon2 parameters (t=0, p=0) or an empty key is malformed too,
// and must be reported as an error rather than crash the caller (argon2
// panics on these) or match every password.
func TestCheckPasswordDegenerateParameters(t *testing.T) {
	good, err := HashPassword("a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, "$")
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	for _, tc := range []struct{ name, hash string }{
		{"zero iterations", with(3, "m=19456,t=0,p=1")},
		{"zero parallelism", with(3, "m=19456,t=2,p=0")},
		{"empty key", with(5, "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("CheckPassword(%q) panicked: %v", tc.hash, r)
				}
			}()
			ok, err := CheckPassword(tc.hash, "any password at all")
			if ok || err == nil {
				t.Fatalf("CheckPassword(%q) = %v, %v; want false and an error", tc.hash, ok, err)
			}
		})
	}
}

func TestValidatePassword(t *testing.T) {
	const email = "Ada.Lovelace@Example.com"
	for _, tc := range []struct {
		name string
		pw   string
		why  string // a fragment of the refusal; empty means accepted
	}{
		{"empty", "", "at least 10 characters"},
		{"9 characters", "k7#mQ2vL9", "at least 10 characters"},
		{"10 characters", "k7#mQ2vL9p", ""},
		{"9 runes in more bytes", "ääääääääää"[:18], "at least 10 characters"}, // 9 × 2 bytes
		{"10 multi-byte runes", "ääääääääää", ""},
		{"10 runes of 3 and 4 bytes", "日本語のパス🔑🔑🔑🔑", ""},
		{"256 bytes", strings.Repeat("a", 256), ""},
		{"257 bytes", strings.Repeat("a", 257), "at most 256 bytes"},
		{"ten spaces", strings.Repeat(" ", 10), "blank characters only"},
		{"tabs, newlines and spaces", " \t\n \t\n \t\n \r", "blank characters only"},
		{"Unicode blanks", strings.Repeat("\u00a0\u2003\u3000", 4), "blank characters only"},
		{"spaces around a word", "    x     ", ""},
		{"the e-mail address", "ada.lovelace@example.com", "e-mail address"},
		{"the e-mail address in other case", "ADA.LOVELACE@EXAMPLE.COM", "e-mail address"},
		{"the e-mail address with blanks", "  Ada.Lovelace@Example.com ", "e-mail address"},
		{"the local part", "ada.lovelace", "part of it before the @"},
		{"the local part in other case", "Ada.LOVELACE", "part of it before the @"},
		{"the local part and more", "ada.lovelace1", ""},
		{"common: digits", "1234567890", "too common"},
		{"common: keyboard row", "qwertyuiop", "too common"},
		{"common: word and digits", "password123", "too common"},
		{"common in other case", "PassWord123", "too common"},
		{"common with blanks around", " qwertyuiop ", "too common"},
		{"uncommon phrase", "correct horse battery staple", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidatePassword(tc.pw, email)
			switch {
			case tc.why == "" && err != nil:
				t.Fatalf("ValidatePassword(%q) = %v, want accepted", tc.pw, err)
			case tc.why != "" && err == nil:
				t.Fatalf("ValidatePassword(%q) = nil, want refused (%s)", tc.pw, tc.why)
			case tc.why != "" && !strings.Contains(err.Error(), tc.why):
				t.Fatalf("ValidatePassword(%q) = %q, want a message saying %q", tc.pw, err, tc.why)
			}
		})
	}
	// Without an address (none known yet) the other rules still apply.
	if err := ValidatePassword("qwertyuiop", ""); err == nil {
		t.Fatal("a common password was accepted without an e-mail address")
	}
	if err := ValidatePassword("k7#mQ2vL9p", ""); err != nil {
		t.Fatalf("ValidatePassword without an e-mail address = %v", err)
	}
}

// TestCommonPasswordList: the embedded list is the generated one (sorted,
// unique, lower-case, 30,000 entries), so the binary search over it finds
// every entry, and its best-known entries are on it.
func TestCommonPasswordList(t *testing.T) {
	list := commonPasswords()
	if len(list) != 30000 {
		t.Fatalf("the list has %d entries, want 30000", len(list))
	}
	for i, pw := range list {
		if pw == "" || pw != strings.ToLower(pw) || strings.TrimSpace(pw) != pw {
			t.Fatalf("entry %d %q is empty, not lower-case or has blanks", i, pw)
		}
		if i > 0 && list[i-1] >= pw {
			t.Fatalf("entries %d and %d (%q, %q) are not sorted and unique", i-1, i, list[i-1], pw)
		}
		if !isCommonPassword(pw) || !isCommonPassword(strings.ToUpper(pw)) {
			t.Fatalf("entry %q is not found", pw)
		}
	}
	for _, pw := range []string{"123456", "password", "qwerty", "iloveyou", "1q2w3e4r5t", "trustno1"} {
		if !isCommonPassword(pw) {
			t.Errorf("%q is not on the list", pw)
		}
	}
	for _, pw := range []string{"", "zzzzzzzzzzzzzzzzzzzz", "k7#mQ2vL9p", "correct horse battery staple"} {
		if isCommonPassword(pw) {
			t.Errorf("%q is on the list", pw)
		}
	}
}

// --- tokens and API keys ---------------------------------------------------

func TestRandomTokenAndHash(t *testing.T) {
	for _, n := range []int{9, 16, 32} {
		tok := RandomToken(n)
		b, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || len(b) != n {
			t.Fatalf("RandomToken(%d) = %q: decodes to %d bytes, %v", n, tok, len(b), err)
		}
	}
	seen := map[string]bool{}
	for range 100 {
		tok := RandomToken(32)
		if seen[tok] {
			t.Fatalf("RandomToken repeated %q", tok)
		}
		seen[tok] = true
	}

	h := HashToken("abc")
	sum := sha256.Sum256([]byte("abc"))
	if h != hex.EncodeToString(sum[:]) || len(h) != 64 {
		t.Fatalf("HashToken(abc) = %q", h)
	}
	if h != HashToken("abc") {
		t.Fatal("HashToken is not deterministic")
	}
	if HashToken("abd") == h {
		t.Fatal("different tokens hash alike")
	}
}

func TestNewAPIKey(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		key, prefix := NewAPIKey()
		if !strings.HasPrefix(key, "dqs_live_") || len(key) != len("dqs_live_")+40 {
			t.Fatalf("key %q: want dqs_live_ and 40 characters", key)
		}
		for _, c := range key[len("dqs_live_"):] {
			if !strings.ContainsRune(base62, c) {
				t.Fatalf("key %q has non-base62 character %q", key, c)
			}
		}
		if len(prefix) != 17 || prefix != key[:17] {
			t.Fatalf("display prefix %q of %q: want the first 17 characters", prefix, key)
		}
		if !LooksLikeAPIKey(key) {
			t.Fatalf("LooksLikeAPIKey(%q) = false", key)
		}
		if seen[key] {
			t.Fatalf("NewAPIKey repeated %q", key)
		}
		seen[key] = true
	}
	if LooksLikeAPIKey("eyJhbGciOiJIUzI1NiJ9.e30.sig") {
		t.Fatal("a JWT looks like an API key")
	}
}

// --- JWT -------------------------------------------------------------------

var (
	testKey  = []byte("0123456789abcdef0123456789abcdef")
	otherKey = []byte("fedcba9876543210fedcba9876543210")
)

func newTestSigner(t *testing.T, key []byte, now time.Time) *Signer {
	t.Helper()
	s, err := NewSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return now }
	return s
}

func TestNewSignerKeyLength(t *testing.T) {
	if _, err := NewSigner(make([]byte, 31)); err == nil {
		t.Fatal("a 31-byte key was accepted")
	}
	if _, err := NewSigner(make([]byte, 32)); err != nil {
		t.Fatalf("a 32-byte key was refused: %v", err)
	}
}

func TestJWTRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s := newTestSigner(t, testKey, now)
	for _, kind := range []string{KindAccess, Kind2FA} {
		tok, exp, err := s.Issue(kind, "user-1", "org-1", 15*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if !exp.Equal(now.Add(15 * time.Minute)) {
			t.Fatalf("exp = %v", exp)
		}
		c, err := s.Verify(tok, kind)
		if err != nil {
			t.Fatalf("Verify(%s): %v", kind, err)
		}
		if c.Subject != "user-1" || c.OrgID != "org-1" || c.Kind != kind || c.Issuer != "dqs" || c.ID == "" ||
			!c.ExpiresAt.Time.Equal(exp) || !c.IssuedAt.Time.Equal(now) {
			t.Fatalf("claims = %+v", c)
		}
	}
	a, _, _ := s.Issue(KindAccess, "user-1", "org-1", time.Minute)
	b, _, _ := s.Issue(KindAccess, "user-1", "org-1", time.Minute)
	if a == b {
		t.Fatal("two tokens issued at the same instant are equal (no jti)")
	}
	// A token whose state is kept server-side carries the id it was recorded under.
	tok, _, err := s.IssueWithID(Kind2FA, "3f0c7a52-1b7e-4f0e-9d55-0d6a1c2b9e41", "user-1", "org-1", 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := s.Verify(tok, Kind2FA); err != nil || c.ID != "3f0c7a52-1b7e-4f0e-9d55-0d6a1c2b9e41" {
		t.Fatalf("IssueWithID: claims %+v, %v; want the given jti", c, err)
	}
}

// signWith signs claims with method and key, bypassing Signer.
func signWith(t *testing.T, method jwt.SigningMethod, claims jwt.Claims, key any) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestJWTRefused(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s := newTestSigner(t, testKey, now)
	good, _, err := s.Issue(KindAccess, "user-1", "org-1", 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	valid := func() Claims {
		return Claims{OrgID: "org-1", Kind: KindAccess, RegisteredClaims: jwt.RegisteredClaims{
			Issuer: "dqs", Subject: "user-1", IssuedAt: jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
		}}
	}
	// Sanity: a hand-made valid token passes, so the refusals below are
	// refusals of the one thing each case changes.
	if _, err := s.Verify(signWith(t, jwt.SigningMethodHS256, valid(), testKey), KindAccess); err != nil {
		t.Fatalf("hand-made valid token refused: %v", err)
	}

	segs := strings.Split(good, ".")
	tamperedSig := func() string {
		sig := []byte(segs[2])
		i := len(sig) / 2
		if sig[i] == 'A' {
			sig[i] = 'B'
		} else {
			sig[i] = 'A'
		}
		return segs[0] + "." + segs[1] + "." + string(sig)
	}()
	tamperedPayload := func() string {
		c := valid()
		c.OrgID = "org-2"
		forged := strings.Split(signWith(t, jwt.SigningMethodHS256, c, otherKey), ".")
		return segs[0] + "." + forged[1] + "." + segs[2]
	}()
	withClaims := func(edit func(*Claims)) string {
		c := valid()
		edit(&c)
		return signWith(t, jwt.SigningMethodHS256, c, testKey)
	}

	for _, tc := range []struct {
		name   string
		tok    string
		kind   string
		signer *Signer
	}{
		{"wrong kind", good, Kind2FA, s},
		{"2fa token as access", withClaims(func(c *Claims) { c.Kind = Kind2FA }), KindAccess, s},
		{"expired", good, KindAccess, newTestSigner(t, testKey, now.Add(15*time.Minute+time.Second))},
		{"not yet valid", good, KindAccess, newTestSigner(t, testKey, now.Add(-time.Minute))},
		{"tampered signature", tamperedSig, KindAccess, s},
		{"tampered payload", tamperedPayload, KindAccess, s},
		{"alg none", signWith(t, jwt.SigningMethodNone, valid(), jwt.UnsafeAllowNoneSignatureType), KindAccess, s},
		{"HS512 with the right key", signWith(t, jwt.SigningMethodHS512, valid(), testKey), KindAccess, s},
		{"HS384 with the right key", signWith(t, jwt.SigningMethodHS384, valid(), testKey), KindAccess, s},
		{"different key", signWith(t, jwt.SigningMethodHS256, valid(), otherKey), KindAccess, s},
		{"verified by a signer with another key", good, KindAccess, newTestSigner(t, otherKey, now)},
		{"other issuer", withClaims(func(c *Claims) { c.Issuer = "someone-else" }), KindAccess, s},
		{"no expiry", withClaims(func(c *Claims) { c.ExpiresAt = nil }), KindAccess, s},
		{"no subject", withClaims(func(c *Claims) { c.Subject = "" }), KindAccess, s},
		{"no org", withClaims(func(c *Claims) { c.OrgID = "" }), KindAccess, s},
		{"garbage", "not.a.jwt", KindAccess, s},
		{"empty", "", KindAccess, s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.signer.Verify(tc.tok, tc.kind)
			if c != nil || !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("Verify = %+v, %v; want ErrInvalidToken", c, err)
			}
		})
	}
}

// --- TOTP ------------------------------------------------------------------

func TestNewTOTPSecret(t *testing.T) {
	secret, raw, err := NewTOTPSecret("alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) < 16 {
		t.Fatalf("secret %q is short", secret)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Scheme != "otpauth" || u.Host != "totp" || q.Get("issuer") != "DQS" || q.Get("secret") != secret ||
		!strings.Contains(u.Path, "DQS:alice@example.com") {
		t.Fatalf("URL %q", raw)
	}
	if p := q.Get("period"); p != "" && p != "30" {
		t.Fatalf("period = %s", p)
	}
	if d := q.Get("digits"); d != "" && d != "6" {
		t.Fatalf("digits = %s", d)
	}
	// A fresh secret works with the current code.
	now := time.Now()
	code, err := TOTPCode(secret, now)
	if err != nil {
		t.Fatal(err)
	}
	if step, ok := MatchTOTP(secret, code, now); !ok || step != now.Unix()/30 {
		t.Fatalf("MatchTOTP(current code) = %d, %v", step, ok)
	}
	other, _, _ := NewTOTPSecret("alice@example.com")
	if other == secret {
		t.Fatal("two secrets are equal")
	}
}

func TestMatchTOTP(t *testing.T) {
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	// Mid-step, so ±30 s land in the neighbouring steps.
	base := int64(59_000_000)
	now := time.Unix(base*30+13, 0)
	codeAt := func(step int64) string {
		t.Helper()
		c, err := TOTPCode(secret, time.Unix(step*30, 0))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	accepted := map[string]bool{}
	for d := int64(-1); d <= 1; d++ {
		accepted[codeAt(base+d)] = true
	}
	if len(accepted) != 3 {
		t.Fatal("fixture codes collide; pick another base")
	}
	for _, d := range []int64{-2, 2, 3, -10} {
		if accepted[codeAt(base+d)] {
			t.Fatal("fixture codes collide; pick another base")
		}
	}
	wrong := "000000"
	for accepted[wrong] {
		wrong = "1" + wrong[1:]
	}

	for _, tc := range []struct {
		name     string
		code     string
		ok       bool
		wantStep int64
	}{
		{"current step", codeAt(base), true, base},
		{"one step behind", codeAt(base - 1), true, base - 1},
		{"one step ahead", codeAt(base + 1), true, base + 1},
		{"two steps behind", codeAt(base - 2), false, 0},
		{"two steps ahead", codeAt(base + 2), false, 0},
		{"long ago", codeAt(base - 10), false, 0},
		{"wrong code", wrong, false, 0},
		{"five digits", codeAt(base)[:5], false, 0},
		{"seven digits", codeAt(base) + "0", false, 0},
		{"empty", "", false, 0},
		{"spaces", " " + codeAt(base)[:5], false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step, ok := MatchTOTP(secret, tc.code, now)
			if ok != tc.ok || step != tc.wantStep {
				t.Fatalf("MatchTOTP(%q) = %d, %v; want %d, %v", tc.code, step, ok, tc.wantStep, tc.ok)
			}
		})
	}

	// At the very edges of the current step the window moves with it.
	start, end := time.Unix(base*30, 0), time.Unix(base*30+29, 0)
	for _, at := range []time.Time{start, end} {
		if step, ok := MatchTOTP(secret, codeAt(base), at); !ok || step != base {
			t.Fatalf("at %v: MatchTOTP = %d, %v", at, step, ok)
		}
	}
	if _, ok := MatchTOTP(secret, codeAt(base+1), time.Unix(base*30+30+29, 0)); !ok {
		t.Fatal("current code refused at the end of its step")
	}
	// A wrong secret refuses the right code.
	if _, ok := MatchTOTP("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", codeAt(base), now); ok {
		t.Fatal("the code of another secret was accepted")
	}
}
