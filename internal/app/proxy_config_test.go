package app

import (
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/proxy"
)

// The proxy finds a tenant by the digest of the key a request carries: it
// must hash keys as the configuration does.
func TestProxyKeyDigestIsTheConfigurationsHash(t *testing.T) {
	for _, k := range []string{"", "vk-1", "a key with spaces", "ключ"} {
		if proxy.KeyDigest(k) != config.HashKey(k) {
			t.Errorf("key %q: proxy digest %s, configuration hash %s", k, proxy.KeyDigest(k), config.HashKey(k))
		}
	}
}

func TestProxyConfigCarriesWhatTheProxyServesWith(t *testing.T) {
	cfg := &config.Config{
		Upstreams:         []config.Upstream{{Name: "a", Provider: "anthropic", BaseURL: "https://api.anthropic.com", APIKey: "k"}},
		PassthroughRoutes: []string{"/v1/batches"},
		Tenants: []config.Tenant{{ID: "t", Upstream: "a", APIKey: "tk", Hashes: []string{"h1"},
			Keys: []config.TenantKey{{HashHex: "h2", Agent: "bot", BypassHooks: true}}}},
		Timeouts: config.Timeouts{Connect: config.Duration(time.Second), FirstByte: config.Duration(2 * time.Second), Idle: config.Duration(3 * time.Second),
			ClientHeader: config.Duration(4 * time.Second), ClientBodyProgress: config.Duration(5 * time.Second),
			ClientIdle: config.Duration(6 * time.Second), ClientWriteStall: config.Duration(7 * time.Second)},
		Limits: config.Limits{MaxRequestBytes: 10, MaxResponseBytes: 11, MaxInflightRequestBytes: 12, MaxConnections: 13, MaxConnectionsPerClient: 14},
	}
	got := proxyConfig(cfg)
	if len(got.Upstreams) != 1 || got.Upstreams[0] != (proxy.Upstream{Name: "a", Provider: "anthropic", BaseURL: "https://api.anthropic.com", APIKey: "k"}) {
		t.Errorf("upstreams: %+v", got.Upstreams)
	}
	if len(got.PassthroughRoutes) != 1 || got.PassthroughRoutes[0] != "/v1/batches" {
		t.Errorf("passthrough routes: %v", got.PassthroughRoutes)
	}
	if len(got.Tenants) != 1 || got.Tenants[0].ID != "t" || got.Tenants[0].Upstream != "a" || got.Tenants[0].APIKey != "tk" ||
		len(got.Tenants[0].Hashes) != 1 || got.Tenants[0].Hashes[0] != "h1" ||
		len(got.Tenants[0].Keys) != 1 || got.Tenants[0].Keys[0] != (proxy.TenantKey{HashHex: "h2", Agent: "bot", BypassHooks: true}) {
		t.Errorf("tenants: %+v", got.Tenants)
	}
	want := proxy.Timeouts{Connect: time.Second, FirstByte: 2 * time.Second, Idle: 3 * time.Second, ClientHeader: 4 * time.Second,
		ClientBodyProgress: 5 * time.Second, ClientIdle: 6 * time.Second, ClientWriteStall: 7 * time.Second}
	if got.Timeouts != want {
		t.Errorf("timeouts: %+v, want %+v", got.Timeouts, want)
	}
	if got.Limits != (proxy.Limits{MaxRequestBytes: 10, MaxResponseBytes: 11, MaxInflightRequestBytes: 12, MaxConnections: 13, MaxConnectionsPerClient: 14}) {
		t.Errorf("limits: %+v", got.Limits)
	}
}
