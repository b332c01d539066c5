package main

import "testing"

// TestLocalURL: the start banner's API address is a working URL for every
// form of DQS_HTTP_ADDR.
func TestLocalURL(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":               "http://localhost:8080",
		"127.0.0.1:8091":      "http://127.0.0.1:8091",
		"0.0.0.0:8080":        "http://localhost:8080",
		"[::1]:8080":          "http://[::1]:8080",
		"[::]:8080":           "http://localhost:8080",
		"localhost:9000":      "http://localhost:9000",
		"dqs.internal:80":     "http://dqs.internal:80",
		"192.0.2.10:8443":     "http://192.0.2.10:8443",
		"[fe80::1%eth0]:8080": "http://[fe80::1%25eth0]:8080",
	} {
		if got := localURL(addr); got != want {
			t.Errorf("localURL(%q) = %q, want %q", addr, got, want)
		}
	}
}
