package auth

import (
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// totpPeriod is the standard 30-second step every authenticator app uses.
const totpPeriod = 30

// TOTPIssuer names the service in authenticator apps.
const TOTPIssuer = "DQS"

// NewTOTPSecret returns a new base32 seed and its otpauth:// URL for account.
func NewTOTPSecret(account string) (secret, url string, err error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: TOTPIssuer, AccountName: account, Period: totpPeriod, Algorithm: otp.AlgorithmSHA1, Digits: otp.DigitsSix})
	if err != nil {
		return "", "", err
	}
	return key.Secret(), key.URL(), nil
}

// MatchTOTP checks code against secret at now, allowing one step of clock
// skew either way, and returns the time step the code belongs to. Callers
// must refuse a step not greater than the last one accepted (no replay).
func MatchTOTP(secret, code string, now time.Time) (step int64, ok bool) {
	if len(code) != 6 {
		return 0, false
	}
	base := now.Unix() / totpPeriod
	for _, d := range []int64{0, -1, 1} {
		s := base + d
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*totpPeriod, 0).UTC(), totp.ValidateOpts{
			Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1,
		})
		if err == nil && constantTimeEqual(want, code) {
			return s, true
		}
	}
	return 0, false
}

// TOTPCode returns the code of secret at t (tests and the README's walk-through use it).
func TOTPCode(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
}

func constantTimeEqual(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := 0; i < len(a); i++ {
		v |= a[i] ^ b[i]
	}
	return v == 0
}
