package analysis

import "github.com/dqs/dqs/profile"

// Dialect is what a user says about how a file is written, where the
// engine would otherwise use its defaults. The zero value uses them all.
type Dialect struct {
	// NullTokens are the values that count as nulls; nil means
	// profile.DefaultNulls, and an empty set none.
	NullTokens *profile.NullTokens
}
