// Package auth holds the credential primitives: password hashing (argon2id),
// random tokens and their hashes, access tokens (JWT, HS256 pinned) and TOTP.
// It knows nothing of HTTP or the database.
package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// MinPasswordLength is the shortest password accepted (DECISIONS.md).
const MinPasswordLength = 10

// maxPasswordLength bounds the work an attacker can ask argon2 to do.
const maxPasswordLength = 256

// argon2id parameters (OWASP's recommended minimum, memory 19 MiB, t=2).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// ValidatePassword says why a password is not acceptable for the account
// of e-mail address email, or nil. The rules follow NIST SP 800-63B: a
// minimum length counted in characters (Unicode code points), no
// composition rules, and a refusal of passwords an attacker tries first:
// blank ones, common ones, and the account's own e-mail address.
func ValidatePassword(pw, email string) error {
	if n := utf8.RuneCountInString(pw); n < MinPasswordLength {
		return fmt.Errorf("password must be at least %d characters", MinPasswordLength)
	}
	if len(pw) > maxPasswordLength {
		return fmt.Errorf("password must be at most %d bytes", maxPasswordLength)
	}
	if strings.TrimFunc(pw, unicode.IsSpace) == "" {
		return errors.New("password must not consist of spaces or other blank characters only")
	}
	if isEmailOrLocalPart(pw, email) {
		return errors.New("password must not be the e-mail address or the part of it before the @")
	}
	if isCommonPassword(pw) {
		return errors.New("password is too common: it is on a list of the 30,000 most used passwords; choose another")
	}
	return nil
}

// isEmailOrLocalPart reports whether pw is the address email or its local
// part, ignoring case and surrounding blanks.
func isEmailOrLocalPart(pw, email string) bool {
	pw = strings.ToLower(strings.TrimSpace(pw))
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return false
	}
	if pw == email {
		return true
	}
	at := strings.LastIndexByte(email, '@')
	return at > 0 && pw == email[:at]
}

// HashPassword returns an encoded argon2id hash ($argon2id$v=19$m=…,t=…,p=…$salt$hash).
func HashPassword(pw string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

var errBadHash = errors.New("malformed password hash")

// CheckPassword reports whether pw matches the encoded hash, in constant time.
func CheckPassword(encoded, pw string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var mem uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &p); err != nil {
		return false, errBadHash
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		return false, errBadHash
	}
	// argon2 panics on degenerate parameters; a corrupt stored hash must be
	// an error, and absurd costs must not stall a login.
	if t < 1 || t > 10 || p < 1 || mem < 8*uint32(p) || mem > 1<<20 || len(want) < 16 || len(want) > 64 || len(salt) < 8 {
		return false, errBadHash
	}
	if len(pw) > maxPasswordLength {
		return false, nil
	}
	got := argon2.IDKey([]byte(pw), salt, t, mem, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is checked against when a login names an unknown user, so the
// response time does not reveal which e-mail addresses exist. It is made on
// first use, not when the package loads: hashing takes tens of milliseconds
// and ~20 MB, which every start of the binary (`dqs profile` included) would
// pay.
var dummyHash = sync.OnceValue(func() string {
	h, _ := HashPassword("dummy password for timing")
	return h
})

// PrepareDummyPassword makes the dummy hash now. A server calls it when it
// starts, so that its first login of an unknown user takes no longer than
// the ones after it.
func PrepareDummyPassword() { dummyHash() }

// CheckDummyPassword spends the time of one password check.
func CheckDummyPassword(pw string) { _, _ = CheckPassword(dummyHash(), pw) }
