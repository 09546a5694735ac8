package config

import (
	"strings"
	"testing"
	"time"
)

// timeouts.drain_delay: unset is the default, 0 is allowed (no wait), a
// duration is kept, and a bad one is a located error.
func TestDrainDelay(t *testing.T) {
	base := "upstreams:\n  - {name: a, base_url: 'http://x'}\n"
	for _, tc := range []struct {
		name, extra string
		want        time.Duration
	}{
		{"unset", "", DefaultDrainDelay},
		{"zero", "timeouts:\n  drain_delay: 0s\n", 0},
		{"set", "timeouts:\n  drain_delay: 2s\n", 2 * time.Second},
	} {
		cfg, err := Parse([]byte(base+tc.extra), "c.yaml", env(nil))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := cfg.Timeouts.Drain(); got != tc.want {
			t.Errorf("%s: drain delay %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := (Timeouts{}).Drain(); got != DefaultDrainDelay {
		t.Errorf("a Timeouts built by hand: %v, want the default", got)
	}
	_, err := Parse([]byte(base+"timeouts:\n  drain_delay: soon\n"), "c.yaml", env(nil))
	if err == nil || !strings.Contains(err.Error(), `c.yaml:4: invalid duration "soon"`) {
		t.Errorf("a bad drain delay: %v", err)
	}
}
