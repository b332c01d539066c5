package config

import (
	"context"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/netguard"
)

// TestSourceNetworkDefaults: by default sources reach no private network;
// loopback is refused in the cluster shape (Load alone: dqs api, dqs
// worker) and allowed in the single-machine shape (dqs dev) unless the
// variable says otherwise.
func TestSourceNetworkDefaults(t *testing.T) {
	c := Defaults()
	if c.SourceAllowNetworks != nil || c.SourceAllowLoopback {
		t.Fatalf("defaults: networks %v, loopback %v; want none, false", c.SourceAllowNetworks, c.SourceAllowLoopback)
	}
	if o := c.SourceGuard(); o.AllowLoopback || len(o.Allow) != 0 || o.Ports != nil || o.Resolver != nil {
		t.Errorf("SourceGuard() of the defaults = %+v", o)
	}
	c.SingleMachine()
	if !c.SourceAllowLoopback || !c.SourceGuard().AllowLoopback {
		t.Error("the single-machine shape does not allow loopback for sources by default")
	}

	for value, want := range map[string]bool{"true": true, "1": true, "false": false, "0": false, "FALSE": false} {
		c, err := Load(env(map[string]string{"DQS_SOURCE_ALLOW_LOOPBACK": value}))
		if err != nil {
			t.Fatalf("DQS_SOURCE_ALLOW_LOOPBACK=%s: %v", value, err)
		}
		if c.SourceAllowLoopback != want {
			t.Errorf("DQS_SOURCE_ALLOW_LOOPBACK=%s: loopback %v, want %v", value, c.SourceAllowLoopback, want)
		}
		c.SingleMachine() // an explicit value wins over the shape's default
		if c.SourceAllowLoopback != want {
			t.Errorf("DQS_SOURCE_ALLOW_LOOPBACK=%s under dqs dev: loopback %v, want %v", value, c.SourceAllowLoopback, want)
		}
	}
}

func TestSourceAllowNetworks(t *testing.T) {
	c, err := Load(env(map[string]string{
		"DQS_SOURCE_ALLOW_NETWORKS": " 10.0.0.0/8, 192.168.12.0/24,,fd12:3456::/48 ,172.16.0.7/32",
		"DQS_SOURCE_ALLOW_LOOPBACK": "false",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.12.0/24"),
		netip.MustParsePrefix("fd12:3456::/48"), netip.MustParsePrefix("172.16.0.7/32"),
	}
	if !reflect.DeepEqual(c.SourceAllowNetworks, want) {
		t.Fatalf("SourceAllowNetworks = %v, want %v", c.SourceAllowNetworks, want)
	}
	o := c.SourceGuard()
	if !reflect.DeepEqual(o.Allow, want) || o.AllowLoopback || o.Ports != nil {
		t.Fatalf("SourceGuard() = %+v", o)
	}
	o.Allow[0] = netip.Prefix{}
	if c.SourceAllowNetworks[0] != want[0] {
		t.Error("SourceGuard shares its Allow slice with the configuration")
	}

	// The options build a guard that lets exactly those networks through.
	g := netguard.New(c.SourceGuard())
	ctx := context.Background()
	for _, host := range []string{"10.9.8.7", "192.168.12.5", "fd12:3456::9", "172.16.0.7", "93.184.216.34"} {
		if err := g.CheckHost(ctx, host, 5432); err != nil {
			t.Errorf("CheckHost(%s) = %v, want allowed", host, err)
		}
	}
	for _, host := range []string{"192.168.13.5", "172.16.0.8", "127.0.0.1", "169.254.169.254"} {
		if err := g.CheckHost(ctx, host, 5432); !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("CheckHost(%s) = %v, want refused", host, err)
		}
	}
}

func TestSourceSettingsRefuseInvalidValues(t *testing.T) {
	for _, tc := range []struct{ name, value, why string }{
		{"DQS_SOURCE_ALLOW_NETWORKS", "10.0.0.0/8,banana", `"banana" is not a network in CIDR form`},
		{"DQS_SOURCE_ALLOW_NETWORKS", "10.1.2.3", "10.1.2.3 is an address, not a network; write 10.1.2.3/32"},
		{"DQS_SOURCE_ALLOW_NETWORKS", "fd00::1", "write fd00::1/128"},
		{"DQS_SOURCE_ALLOW_NETWORKS", "10.1.2.3/8", "did you mean 10.0.0.0/8?"},
		{"DQS_SOURCE_ALLOW_NETWORKS", "10.0.0.0/33", "not a network in CIDR form"},
		{"DQS_SOURCE_ALLOW_NETWORKS", "fe80::/10%eth0", "not a network in CIDR form"},
		{"DQS_SOURCE_ALLOW_NETWORKS", "::ffff:10.0.0.0/104", "write the IPv4 network"},
		{"DQS_SOURCE_ALLOW_LOOPBACK", "yes", "want true or false"},
		{"DQS_SOURCE_ALLOW_LOOPBACK", "on", "want true or false"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			c, err := Load(env(map[string]string{tc.name: tc.value}))
			if err == nil {
				t.Fatalf("Load accepted %s=%q: %+v", tc.name, tc.value, c)
			}
			if !strings.Contains(err.Error(), tc.name) || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("error %q does not name %s and say %q", err, tc.name, tc.why)
			}
		})
	}
}
