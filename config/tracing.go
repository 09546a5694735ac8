package config

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Tracing exports OpenTelemetry traces over OTLP: a span per request, its
// upstream call, each held tool call and each hook execution. It is off
// unless enabled, and read at start only (a reload keeps the exporter the
// process started with).
type Tracing struct {
	Enabled bool `yaml:"enabled"`
	// Endpoint is the collector: host:port, or a URL
	// (http://collector:4318/v1/traces for http).
	Endpoint string `yaml:"endpoint"`
	// Protocol is http (OTLP/HTTP protobuf, the default) or grpc.
	Protocol string `yaml:"protocol"`
	// Insecure sends without TLS.
	Insecure bool `yaml:"insecure"`
	// HeadersEnv maps a header sent with every export to the environment
	// variable that holds its value (an authorization token).
	HeadersEnv map[string]string `yaml:"headers_env"`
	// SampleRatio is the share of new traces recorded, 0 to 1 (default 1).
	// A request whose traceparent says sampled or not is followed.
	SampleRatio *float64 `yaml:"sample_ratio"`
	// ServiceName is the resource's service.name (default hookgate).
	ServiceName string `yaml:"service_name"`

	// Headers are read from HeadersEnv at load time. They are never logged.
	Headers map[string]string `yaml:"-"`
}

// Ratio is SampleRatio, 1 when unset.
func (t Tracing) Ratio() float64 {
	if t.SampleRatio == nil {
		return 1
	}
	return *t.SampleRatio
}

// validateTracing checks the tracing block and resolves its headers from
// the environment. A block that is not enabled is still checked, so that
// turning it on later does not reveal old mistakes.
func validateTracing(c *Config, root *yaml.Node, ps *problems, lookup func(string) (string, bool)) {
	t := &c.Tracing
	switch t.Protocol {
	case "", "http", "grpc":
	default:
		ps.add(lineOf(root, "tracing", "protocol"), "tracing.protocol", "want http or grpc, got %q", t.Protocol)
	}
	if r := t.SampleRatio; r != nil && (*r < 0 || *r > 1) {
		ps.add(lineOf(root, "tracing", "sample_ratio"), "tracing.sample_ratio", "want a ratio from 0 to 1, got %v", *r)
	}
	switch {
	case t.Endpoint == "":
		if t.Enabled {
			ps.add(lineOf(root, "tracing"), "tracing.endpoint", "required when tracing is enabled")
		}
	case strings.Contains(t.Endpoint, "://"):
		if u, err := url.Parse(t.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			ps.add(lineOf(root, "tracing", "endpoint"), "tracing.endpoint", "want host:port or an absolute http(s) URL, got %q", t.Endpoint)
		}
	default:
		if _, port, err := net.SplitHostPort(t.Endpoint); err != nil || port == "" {
			ps.add(lineOf(root, "tracing", "endpoint"), "tracing.endpoint", "want host:port or an absolute http(s) URL, got %q", t.Endpoint)
		}
	}
	names := make([]string, 0, len(t.HeadersEnv))
	for k := range t.HeadersEnv {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 0 {
		t.Headers = make(map[string]string, len(names))
	}
	for _, k := range names {
		path := fmt.Sprintf("tracing.headers_env.%s", k)
		if !validTraceHeaderName(k) {
			ps.add(lineOf(root, "tracing", "headers_env", k), path, "invalid header name %q", k)
			continue
		}
		v := secret(t.HeadersEnv[k], lineOf(root, "tracing", "headers_env", k), path, ps, lookup)
		if strings.ContainsAny(v, "\r\n\x00") {
			ps.add(lineOf(root, "tracing", "headers_env", k), path, "the value of %s contains CR, LF or NUL", t.HeadersEnv[k])
			continue
		}
		t.Headers[k] = v
	}
}

// validTraceHeaderName reports an HTTP token (RFC 9110's tchar).
func validTraceHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
