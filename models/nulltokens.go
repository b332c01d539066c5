package models

import "encoding/json"

// EncodeNullTokens is how a list of null tokens is stored: nil (the
// engine's defaults) as NULL, any other list, empty included, as its JSON
// array.
func EncodeNullTokens(tokens []string) *string {
	if tokens == nil {
		return nil
	}
	raw, _ := json.Marshal(tokens) // a []string always encodes
	s := string(raw)
	return &s
}

// decodeNullTokens reads a stored list: nil for NULL or an unreadable value
// (the defaults), else the list, never nil.
func decodeNullTokens(stored *string) []string {
	if stored == nil {
		return nil
	}
	tokens := []string{}
	if err := json.Unmarshal([]byte(*stored), &tokens); err != nil {
		return nil
	}
	return tokens
}

// NullTokenList is the organisation's null tokens: nil for the defaults.
func (o *Organization) NullTokenList() []string { return decodeNullTokens(o.NullTokens) }

// NullTokenList is the job's null tokens: nil for the defaults.
func (j *Job) NullTokenList() []string { return decodeNullTokens(j.NullTokens) }
