package app

import (
	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/proxy"
)

// proxyConfig is the proxy's part of cfg.
func proxyConfig(cfg *config.Config) *proxy.Config {
	pc := &proxy.Config{
		PassthroughRoutes: append([]string(nil), cfg.PassthroughRoutes...),
		Timeouts:          proxyTimeouts(cfg.Timeouts),
		Limits: proxy.Limits{
			MaxRequestBytes:         int64(cfg.Limits.MaxRequestBytes),
			MaxResponseBytes:        int64(cfg.Limits.MaxResponseBytes),
			MaxInflightRequestBytes: int64(cfg.Limits.MaxInflightRequestBytes),
			MaxConnections:          cfg.Limits.MaxConnections,
			MaxConnectionsPerClient: cfg.Limits.MaxConnectionsPerClient,
		},
	}
	for _, u := range cfg.Upstreams {
		pc.Upstreams = append(pc.Upstreams, proxy.Upstream{Name: u.Name, Provider: u.Provider, BaseURL: u.BaseURL, APIKey: u.APIKey})
	}
	for _, t := range cfg.Tenants {
		pt := proxy.Tenant{ID: t.ID, Upstream: t.Upstream, APIKey: t.APIKey, Hashes: append([]string(nil), t.Hashes...)}
		for _, k := range t.Keys {
			pt.Keys = append(pt.Keys, proxy.TenantKey{HashHex: k.HashHex, Agent: k.Agent, BypassHooks: k.BypassHooks})
		}
		pc.Tenants = append(pc.Tenants, pt)
	}
	return pc
}

// proxyTimeouts are the proxy's timeouts of t.
func proxyTimeouts(t config.Timeouts) proxy.Timeouts {
	return proxy.Timeouts{
		Connect: t.Connect.D(), FirstByte: t.FirstByte.D(), Idle: t.Idle.D(),
		ClientHeader: t.ClientHeader.D(), ClientBodyProgress: t.ClientBodyProgress.D(),
		ClientIdle: t.ClientIdle.D(), ClientWriteStall: t.ClientWriteStall.D(),
	}
}
