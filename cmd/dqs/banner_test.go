package main

import (
	"testing"

	"github.com/dqs/dqs/config"
)

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

// TestSourceNetworks: the banner says which non-public networks data
// sources may reach, loopback under dqs dev by default.
func TestSourceNetworks(t *testing.T) {
	cfg := config.Defaults()
	if got := sourceNetworks(cfg); got != "" {
		t.Errorf("cluster defaults: %q, want nothing", got)
	}
	cfg.SingleMachine()
	if got := sourceNetworks(cfg); got != "loopback" {
		t.Errorf("dqs dev defaults: %q, want loopback", got)
	}
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"DQS_SOURCE_ALLOW_NETWORKS": "10.0.0.0/8,fd12::/16", "DQS_SOURCE_ALLOW_LOOPBACK": "false"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.SingleMachine()
	if got := sourceNetworks(cfg); got != "10.0.0.0/8, fd12::/16" {
		t.Errorf("networks, loopback refused: %q", got)
	}
}
