package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"strings"
)

// APIKeyPrefix starts every API key: dqs_live_<random>.
const APIKeyPrefix = "dqs_live_"

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// apiKeyRandomLen is the number of base62 characters after the prefix
// (about 238 bits).
const apiKeyRandomLen = 40

// apiKeyVisibleLen is how many random characters the displayed key prefix keeps.
const apiKeyVisibleLen = 8

// RandomToken returns an opaque URL-safe token of n random bytes.
func RandomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken is the SHA-256 (hex) under which a token or key is stored. The
// tokens are long and random, so a fast hash is enough (no salt needed).
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewAPIKey returns a new key and the prefix shown in listings and audit
// metadata (dqs_live_ plus the first 8 random characters).
func NewAPIKey() (key, displayPrefix string) {
	var sb strings.Builder
	sb.WriteString(APIKeyPrefix)
	max := big.NewInt(int64(len(base62)))
	for i := 0; i < apiKeyRandomLen; i++ {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("crypto/rand failed: " + err.Error())
		}
		sb.WriteByte(base62[n.Int64()])
	}
	key = sb.String()
	return key, key[:len(APIKeyPrefix)+apiKeyVisibleLen]
}

// LooksLikeAPIKey tells an API key from a JWT in a bearer header.
func LooksLikeAPIKey(token string) bool { return strings.HasPrefix(token, APIKeyPrefix) }
