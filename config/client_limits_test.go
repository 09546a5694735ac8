package config

import (
	"strings"
	"testing"
	"time"
)

func TestClientBoundsHaveSafeDefaults(t *testing.T) {
	cfg, err := Parse([]byte("upstreams:\n  - {name: a, base_url: 'http://x'}\n"), "c.yaml", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	l, to := cfg.Limits, cfg.Timeouts
	if l.MaxInflightRequestBytes != 1<<30 || l.MaxConnections != DefaultMaxConnections || l.MaxConnectionsPerClient != 0 || l.ScriptMaxMemory != 64<<20 {
		t.Errorf("limits %+v", l)
	}
	if to.ClientHeader.D() != 10*time.Second || to.ClientBodyProgress.D() != 30*time.Second ||
		to.ClientIdle.D() != 90*time.Second || to.ClientWriteStall.D() != 60*time.Second {
		t.Errorf("timeouts %+v", to)
	}
}

func TestNegativeClientBoundsAreRefused(t *testing.T) {
	doc := "upstreams:\n  - {name: a, base_url: 'http://x'}\nlimits:\n  max_connections: -1\n  max_connections_per_client: -2"
	_, err := Parse([]byte(doc), "c.yaml", env(nil))
	if err == nil {
		t.Fatal("negative bounds were accepted")
	}
	for _, w := range []string{"limits.max_connections:", "limits.max_connections_per_client"} {
		if !strings.Contains(err.Error()+" ", w) {
			t.Errorf("missing %q in:\n%v", w, err)
		}
	}
}

func TestNegativeClientTimeoutIsRefused(t *testing.T) {
	doc := "upstreams:\n  - {name: a, base_url: 'http://x'}\ntimeouts:\n  client_idle: -1s\n"
	if _, err := Parse([]byte(doc), "c.yaml", env(nil)); err == nil || !strings.Contains(err.Error(), "-1s") {
		t.Fatalf("a negative client timeout: %v", err)
	}
}

func TestTinyScriptMemoryIsRefused(t *testing.T) {
	doc := "upstreams:\n  - {name: a, base_url: 'http://x'}\nlimits:\n  script_max_memory: 512KiB\n"
	if _, err := Parse([]byte(doc), "c.yaml", env(nil)); err == nil || !strings.Contains(err.Error(), "limits.script_max_memory: want at least 1MiB") {
		t.Fatalf("a 512 KiB script budget: %v", err)
	}
}
