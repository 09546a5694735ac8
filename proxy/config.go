package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Config is what the proxy is built from: the part of hookgate's
// configuration it serves with, filled by the wiring (internal/app) from
// the configuration file. The proxy reads no file and knows no YAML.
type Config struct {
	// Upstreams are the LLM APIs requests go to; the first of a provider
	// serves the requests of that provider by default.
	Upstreams []Upstream
	// PassthroughRoutes are paths forwarded unread with everything under
	// them, while hooks are configured (passthrough_routes).
	PassthroughRoutes []string
	// Tenants authenticate requests by virtual key. None: no tenants.
	Tenants  []Tenant
	Timeouts Timeouts
	Limits   Limits
}

// Upstream is one configured LLM API.
type Upstream struct {
	Name string
	// Provider is a registered provider (providers.Providers); it decides
	// how APIKey is carried (providers.Format.Auth).
	Provider string
	// BaseURL is the API's absolute http(s) URL, without /v1.
	BaseURL string
	// APIKey, when set, replaces the client's credential upstream.
	APIKey string
}

// Timeouts bound the upstream hop and the clients' pace. A zero duration
// turns its bound off.
type Timeouts struct {
	// Connect bounds dialing an upstream; FirstByte the wait for its first
	// response byte; Idle the silence between two of its reads.
	Connect, FirstByte, Idle time.Duration
	// ClientHeader bounds a request's head; ClientBodyProgress the wait
	// for each read of its body; ClientIdle a keep-alive connection's wait
	// for its next request; ClientWriteStall the time a client may take
	// no byte of a response.
	ClientHeader, ClientBodyProgress, ClientIdle, ClientWriteStall time.Duration
}

// Limits bound sizes and connections. A zero MaxConnections or
// MaxConnectionsPerClient is no cap; a zero MaxInflightRequestBytes is no
// budget.
type Limits struct {
	MaxRequestBytes         int64 // one request body
	MaxResponseBytes        int64 // one response body hookgate decodes whole
	MaxInflightRequestBytes int64 // request body bytes held at once
	MaxConnections          int
	MaxConnectionsPerClient int
}

// Tenant is a tenant as the proxy authenticates and routes it.
type Tenant struct {
	ID string
	// Upstream names the upstream its requests go to ("" chooses by
	// route); APIKey overrides that upstream's credential.
	Upstream, APIKey string
	// Hashes are KeyDigest of every virtual key of the tenant.
	Hashes []string
	// Keys are virtual keys with attributes, by digest.
	Keys []TenantKey
}

// TenantKey is one virtual key with its attributes.
type TenantKey struct {
	HashHex     string // KeyDigest of the key
	Agent       string // the agent the key identifies
	BypassHooks bool   // blocking hooks do not apply (automated evaluations)
}

// KeyDigest is the digest a virtual key is held as: sha256, hex.
func KeyDigest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
