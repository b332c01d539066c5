package auth

import (
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Token kinds: an access token authenticates API calls; a 2FA token only
// lets its holder complete a login with a TOTP code.
const (
	KindAccess = "access"
	Kind2FA    = "2fa"
)

// Claims of the service's JWTs.
type Claims struct {
	OrgID string `json:"org"`
	Kind  string `json:"kind"`
	jwt.RegisteredClaims
}

// Signer issues and verifies HS256 JWTs; the algorithm is pinned on parse,
// so a token claiming "none" or RS256 is refused.
type Signer struct {
	key    []byte
	issuer string
	now    func() time.Time
}

// NewSigner returns a signer with an HMAC key of at least 32 bytes.
func NewSigner(key []byte) (*Signer, error) {
	if len(key) < 32 {
		return nil, errors.New("JWT key must be at least 32 bytes")
	}
	return &Signer{key: key, issuer: "dqs", now: time.Now}, nil
}

// Issue signs a token of kind for user userID of organisation orgID, with a
// random id (jti).
func (s *Signer) Issue(kind, userID, orgID string, ttl time.Duration) (string, time.Time, error) {
	return s.IssueWithID(kind, RandomToken(12), userID, orgID, ttl)
}

// IssueWithID signs a token whose id (jti) is id: a token whose state the
// service keeps (a temp_token) is recorded under its id before it is sent.
func (s *Signer) IssueWithID(kind, id, userID, orgID string, ttl time.Duration) (string, time.Time, error) {
	now := s.now().UTC()
	exp := now.Add(ttl)
	claims := Claims{
		OrgID: orgID,
		Kind:  kind,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.issuer,
			Subject:   userID,
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(exp),
			ID:        id,
		},
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.key)
	return tok, exp, err
}

// ErrInvalidToken hides why a token was refused (expired, forged, wrong kind).
var ErrInvalidToken = errors.New("invalid or expired token")

// Verify parses tok and checks signature, algorithm, issuer, expiry and kind.
func (s *Signer) Verify(tok, kind string) (*Claims, error) {
	var c Claims
	_, err := jwt.ParseWithClaims(tok, &c, func(*jwt.Token) (any, error) { return s.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(s.issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now),
	)
	if err != nil || c.Kind != kind || c.Subject == "" || c.OrgID == "" {
		return nil, ErrInvalidToken
	}
	return &c, nil
}
