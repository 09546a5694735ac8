package config

import (
	"time"

	"github.com/hookgate/hookgate/hooks"
)

// Config is the whole configuration file.
type Config struct {
	Listen            string       `yaml:"listen"`
	Admin             Admin        `yaml:"admin"`
	Upstreams         []Upstream   `yaml:"upstreams"`
	Hooks             []hooks.Spec `yaml:"hooks"`
	PassthroughRoutes []string     `yaml:"passthrough_routes"`
	Limits            Limits       `yaml:"limits"`
	Timeouts          Timeouts     `yaml:"timeouts"`
	Interception      Interception `yaml:"interception"`
	Log               Log          `yaml:"log"`
	Store             Store        `yaml:"store"`
	Audit             Audit        `yaml:"audit"`
	Channels          []Channel    `yaml:"channels"`
	Tenants           []Tenant     `yaml:"tenants"`
	Metrics           Metrics      `yaml:"metrics"`
	Tracing           Tracing      `yaml:"tracing"`

	// Path is the file the configuration was read from ("" when built in
	// code); BaseDir resolves relative paths inside it.
	Path    string `yaml:"-"`
	BaseDir string `yaml:"-"`
}

// Admin is the admin listener: /metrics and /healthz without a token;
// admin writes (approvals, tenant switches) with a bearer token; the
// operator's console (/console/) behind a login with one.
type Admin struct {
	Listen   string       `yaml:"listen"`
	TokenEnv string       `yaml:"token_env"`
	Tokens   []AdminToken `yaml:"tokens"`
	// SessionKeyEnv names the variable holding the key that signs console
	// session cookies (at least 32 bytes), shared by every instance so
	// that a login survives a load balancer. Unset: a random key per
	// process, and sessions end with it.
	SessionKeyEnv string `yaml:"session_key_env"`
	// InsecureCookies drops the Secure flag of the console's cookie, for
	// set-ups that serve the admin listener over plain HTTP.
	InsecureCookies bool `yaml:"insecure_cookies"`

	// SessionKey is read from SessionKeyEnv at load time. It is never
	// logged.
	SessionKey string `yaml:"-"`
}

// AdminToken is one approver's token; Name is what audit and approval
// records show as the person who answered.
type AdminToken struct {
	Name     string `yaml:"name"`
	TokenEnv string `yaml:"token_env"`
	// Tenants are the tenants whose approvals and decisions the token
	// sees and answers, in the admin API and the console; empty: all.
	Tenants []string `yaml:"tenants"`

	// Token is read from TokenEnv at load time. It is never logged.
	Token string `yaml:"-"`
}

// Store is where hookgate persists audit records, approvals and sessions.
type Store struct {
	Driver string `yaml:"driver"` // sqlite (default) | postgres
	Path   string `yaml:"path"`   // sqlite file
	DSN    string `yaml:"dsn"`    // postgres connection string
}

// Audit configures the record of every hook execution.
type Audit struct {
	KeyEnv    string   `yaml:"key_env"`    // 32-byte key (hex or base64) encrypting error_detail
	OnFull    string   `yaml:"on_full"`    // block (default) | drop
	QueueSize int      `yaml:"queue_size"` // records waiting to be written
	MaxWait   Duration `yaml:"max_wait"`   // how long a request waits for room under on_full: block

	// CaptureEvents keeps every dispatched event (the JSON hooks receive)
	// and hookgate's decision, sealed with the key, for `hookgate replay`.
	// Off by default; it needs key_env.
	CaptureEvents bool     `yaml:"capture_events"`
	CaptureTTL    Duration `yaml:"capture_ttl"` // how long a captured event is kept (default 168h)

	// Key is read from KeyEnv at load time. It is never logged.
	Key string `yaml:"-"`
}

// Channel is a way hookgate talks to people: approval cards, messages.
type Channel struct {
	Name             string `yaml:"name"`
	Type             string `yaml:"type"` // webhook | slack | feishu
	URL              string `yaml:"url"`  // webhook target; API base for slack/feishu (defaults to the public API)
	SecretEnv        string `yaml:"secret_env"`
	BotTokenEnv      string `yaml:"bot_token_env"`      // slack
	SigningSecretEnv string `yaml:"signing_secret_env"` // slack
	Channel          string `yaml:"channel"`            // slack channel id / feishu chat id
	AppID            string `yaml:"app_id"`             // feishu
	AppSecretEnv     string `yaml:"app_secret_env"`     // feishu
	VerificationEnv  string `yaml:"verification_token_env"`
	EncryptKeyEnv    string `yaml:"encrypt_key_env"`

	// Secrets resolved from the *_env names at load time; never logged.
	Secret, BotToken, SigningSecret, AppSecret, VerificationToken, EncryptKey string `yaml:"-"`
}

// Upstream is one LLM API hookgate forwards to.
type Upstream struct {
	Name      string `yaml:"name"`
	Provider  string `yaml:"provider"`
	BaseURL   string `yaml:"base_url"`
	APIKeyEnv string `yaml:"api_key_env"`

	// APIKey is read from APIKeyEnv at load time. It is never logged.
	APIKey string `yaml:"-"`
}

// Limits bound what one request or stream may hold in memory, and what
// one instance takes on at once (admission limits: over them a request
// gets a 503 with Retry-After, or a call is blocked, never queued without
// end).
type Limits struct {
	MaxRequestBytes  ByteSize `yaml:"max_request_bytes"`
	MaxResponseBytes ByteSize `yaml:"max_response_bytes"`
	MaxEventBytes    ByteSize `yaml:"max_event_bytes"`
	MaxStreamBytes   ByteSize `yaml:"max_stream_bytes"`
	// MaxConcurrentStreams bounds the streamed responses open through
	// this instance (requests that ask for a stream, from admission to
	// their last byte).
	MaxConcurrentStreams int `yaml:"max_concurrent_streams"`
	// MaxPendingApprovals bounds the approval questions waiting for a
	// person on this instance; over it a call is blocked, not asked.
	MaxPendingApprovals int `yaml:"max_pending_approvals"`
	// MaxConcurrentHooks bounds the synchronous hook executions in flight
	// (blocking and contributing hooks; a call waiting for a person gives
	// its slot back while it waits).
	MaxConcurrentHooks int `yaml:"max_concurrent_hooks"`
	// MaxInflightRequestBytes bounds the request body bytes this instance
	// holds at once, counted as they arrive (never from Content-Length).
	MaxInflightRequestBytes ByteSize `yaml:"max_inflight_request_bytes"`
	// MaxConnections bounds the agent connections open at once.
	MaxConnections int `yaml:"max_connections"`
	// MaxConnectionsPerClient bounds the connections one client address
	// holds. Zero (the default) means no per-address bound: behind a load
	// balancer every client shares one address.
	MaxConnectionsPerClient int `yaml:"max_connections_per_client"`
	// ScriptMaxMemory is the memory one script hook execution may take; a
	// hook may ask for less, never more.
	ScriptMaxMemory ByteSize `yaml:"script_max_memory"`
}

// Timeouts for the upstream exchange, the stream's keep-alive, the
// clients' connections and the shutdown.
type Timeouts struct {
	Connect   Duration `yaml:"connect"`
	FirstByte Duration `yaml:"first_byte"`
	Idle      Duration `yaml:"idle"`
	Heartbeat Duration `yaml:"heartbeat"`
	// ShutdownGrace is how long requests and streams in flight may run
	// after SIGTERM before hookgate closes them and exits.
	ShutdownGrace Duration `yaml:"shutdown_grace"`
	// DrainDelay is how long hookgate, after SIGTERM, keeps serving with
	// its readiness (/readyz) false before it stops accepting connections,
	// so that load balancers stop sending first. Nil is
	// DefaultDrainDelay; 0 stops at once.
	DrainDelay *Duration `yaml:"drain_delay"`
	// ClientHeader bounds the time a client takes to send a request's
	// head; ClientBodyProgress the time between two bytes of its body;
	// ClientIdle how long a keep-alive connection waits for its next
	// request; ClientWriteStall how long a client may leave a response
	// unread (its socket buffer full) before it is disconnected. None of
	// them runs while hookgate owes the answer.
	ClientHeader       Duration `yaml:"client_header"`
	ClientBodyProgress Duration `yaml:"client_body_progress"`
	ClientIdle         Duration `yaml:"client_idle"`
	ClientWriteStall   Duration `yaml:"client_write_stall"`
}

// Drain is DrainDelay, DefaultDrainDelay when unset.
func (t Timeouts) Drain() time.Duration {
	if t.DrainDelay == nil {
		return DefaultDrainDelay
	}
	return t.DrainDelay.D()
}

// Interception tunes how the agent loop is read out of the traffic.
type Interception struct {
	SessionHeader       string   `yaml:"session_header"`
	ParentSessionHeader string   `yaml:"parent_session_header"`
	AgentHeader         string   `yaml:"agent_header"`
	MetadataHeaders     []string `yaml:"metadata_headers"`
	BlockTemplate       string   `yaml:"block_template"`
	ContextPosition     string   `yaml:"context_position"`
	OnBlock             string   `yaml:"on_block"`
	MaxRetries          int      `yaml:"max_retries"`
	SessionTTL          Duration `yaml:"session_ttl"`
	PreResponseOnTools  bool     `yaml:"pre_response_on_tool_calls"`
}

// Log configures hookgate's own log.
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// Upstream returns the upstream with the given name, or nil.
func (c *Config) Upstream(name string) *Upstream {
	for i := range c.Upstreams {
		if c.Upstreams[i].Name == name {
			return &c.Upstreams[i]
		}
	}
	return nil
}

// HasHooks reports whether any hook is configured.
func (c *Config) HasHooks() bool { return len(c.Hooks) > 0 }

// Tenant is one team on a shared hookgate: its virtual keys, its upstream
// and credential, its read-only flag, its channels and its own hooks.
type Tenant struct {
	ID string `yaml:"id"`
	// KeysEnv names an environment variable holding comma-separated
	// virtual keys; KeyHashes are sha256 hex digests of keys. Keys are kept
	// hashed in memory either way.
	KeysEnv   string   `yaml:"keys_env"`
	KeyHashes []string `yaml:"key_hashes"`
	// Keys are virtual keys with attributes: the agent they identify and
	// whether they bypass blocking hooks (for automated evaluations).
	Keys []TenantKey `yaml:"keys"`
	// Upstream names the upstream its requests go to (default: by route);
	// APIKeyEnv overrides that upstream's credential for this tenant.
	Upstream  string `yaml:"upstream"`
	APIKeyEnv string `yaml:"api_key_env"`
	ReadOnly  bool   `yaml:"read_only"`
	// Channels are the names of channels this tenant's approvals and
	// notifications go to, instead of the operator's.
	Channels []string `yaml:"channels"`
	// HooksFile is a YAML list of hook entries, untrusted: they may block,
	// never rewrite, and may only use script and builtin handlers.
	HooksFile string `yaml:"hooks_file"`

	// Resolved at load time; never logged.
	APIKey string   `yaml:"-"`
	Hashes []string `yaml:"-"` // every key's sha256, from keys_env, key_hashes and keys
}

// TenantKey is one virtual key with its attributes.
type TenantKey struct {
	KeyEnv      string `yaml:"key_env"`
	Hash        string `yaml:"hash"`
	Agent       string `yaml:"agent"`
	BypassHooks bool   `yaml:"bypass_hooks"`

	// HashHex is the key's sha256, resolved at load time.
	HashHex string `yaml:"-"`
}

// Tenant returns the tenant with the given id, or nil.
func (c *Config) Tenant(id string) *Tenant {
	for i := range c.Tenants {
		if c.Tenants[i].ID == id {
			return &c.Tenants[i]
		}
	}
	return nil
}

// Metrics tunes hookgate's Prometheus series.
type Metrics struct {
	// ToolLabels are tool names that get their own label value in
	// hookgate_tool_calls_total (besides those named literally in hook
	// matchers); every other tool is counted as "other", so a model cannot
	// grow the series without bound.
	ToolLabels []string `yaml:"tool_labels"`
}
