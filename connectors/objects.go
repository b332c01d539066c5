package connectors

import (
	"fmt"
	"net/url"
	"strings"
)

// FolderPrefix makes an object store's configured prefix a folder: no
// leading "/", one trailing "/" ("" is the whole bucket).
func FolderPrefix(p string) string {
	p = strings.TrimLeft(strings.TrimSpace(p), "/")
	if p != "" && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// KeyUnder reports whether key names an object under prefix (a
// FolderPrefix): not the prefix itself, no folder marker, no NUL, no "."
// or ".." segment. Every key an object source lists or opens passes it, so
// a source never reads outside the folder its owner configured.
func KeyUnder(prefix, key string) bool {
	if len(key) <= len(prefix) || !strings.HasPrefix(key, prefix) || strings.HasSuffix(key, "/") ||
		strings.ContainsRune(key, 0) {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// SupportedExtension reports whether the file readers take an object of
// this name: CSV and its kin (.csv, .tsv, .tab, .psv, .txt), JSON (.json,
// .jsonl, .ndjson) and Parquet (.parquet, .pq, .parq), in any case.
func SupportedExtension(key string) bool {
	name := key[strings.LastIndexByte(key, '/')+1:]
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return false
	}
	switch strings.ToLower(name[i:]) {
	case ".csv", ".tsv", ".tab", ".psv", ".txt", ".json", ".jsonl", ".ndjson", ".parquet", ".pq", ".parq":
		return true
	}
	return false
}

// ParseEndpoint reads an object store's endpoint override: an http(s) URL
// with a host and no user info, query or fragment (nil for ""). The
// message names the kind and shows example, a URL of the right shape.
func ParseEndpoint(kind, raw, example string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: %s endpoint must be an http(s) URL such as %s, without user name, query or fragment", ErrInvalid, kind, example)
	}
	return u, nil
}
