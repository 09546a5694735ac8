package config

import (
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

	// Path is the file the configuration was read from ("" when built in
	// code); BaseDir resolves relative paths inside it.
	Path    string `yaml:"-"`
	BaseDir string `yaml:"-"`
}

// Admin is the admin listener: /metrics and /healthz, later admin writes.
type Admin struct {
	Listen   string `yaml:"listen"`
	TokenEnv string `yaml:"token_env"`
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

// Limits bound what one request or stream may hold in memory.
type Limits struct {
	MaxRequestBytes  ByteSize `yaml:"max_request_bytes"`
	MaxResponseBytes ByteSize `yaml:"max_response_bytes"`
	MaxEventBytes    ByteSize `yaml:"max_event_bytes"`
	MaxStreamBytes   ByteSize `yaml:"max_stream_bytes"`
}

// Timeouts for the upstream exchange.
type Timeouts struct {
	Connect   Duration `yaml:"connect"`
	FirstByte Duration `yaml:"first_byte"`
	Idle      Duration `yaml:"idle"`
	Heartbeat Duration `yaml:"heartbeat"`
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
