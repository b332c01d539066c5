package analysis

import "github.com/dqs/dqs/profile"

// Dialect is what a user says about how a file is written, where the
// engine would otherwise use its defaults. The zero value uses them all.
type Dialect struct {
	// NullTokens are the values that count as nulls; nil means
	// profile.DefaultNulls, and an empty set none.
	NullTokens *profile.NullTokens
}

// WithNullTokens is the dialect whose null tokens are tokens: nil for the
// defaults, empty for none. The error says which token is unusable.
func WithNullTokens(tokens []string) (Dialect, error) {
	if tokens == nil {
		return Dialect{}, nil
	}
	set, err := profile.NewNullTokens(tokens)
	if err != nil {
		return Dialect{}, err
	}
	return Dialect{NullTokens: set}, nil
}
