package config

import (
	"strings"
	"testing"
)

// tracing: off by default; a valid block is read with its headers from the
// environment; every mistake is a located error.
func TestTracingBlock(t *testing.T) {
	base := "upstreams:\n  - {name: a, base_url: 'http://x'}\n"
	cfg, err := Parse([]byte(base), "c.yaml", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Tracing.Enabled || cfg.Tracing.Ratio() != 1 {
		t.Fatalf("default tracing: %+v, ratio %v", cfg.Tracing, cfg.Tracing.Ratio())
	}

	on := base + "tracing:\n  enabled: true\n  endpoint: collector:4317\n  protocol: grpc\n  sample_ratio: 0.25\n  headers_env: {Authorization: OTLP_AUTH}\n"
	cfg, err = Parse([]byte(on), "c.yaml", env(map[string]string{"OTLP_AUTH": "Bearer t"}))
	if err != nil {
		t.Fatal(err)
	}
	tr := cfg.Tracing
	if !tr.Enabled || tr.Endpoint != "collector:4317" || tr.Protocol != "grpc" || tr.Ratio() != 0.25 || tr.Headers["Authorization"] != "Bearer t" {
		t.Fatalf("tracing read as %+v", tr)
	}

	for _, tc := range []struct {
		name, block, want string
	}{
		{"no endpoint", "  enabled: true\n", "c.yaml:4: tracing.endpoint: required when tracing is enabled"},
		{"bad protocol", "  endpoint: c:4318\n  protocol: thrift\n", `c.yaml:5: tracing.protocol: want http or grpc, got "thrift"`},
		{"ratio above 1", "  endpoint: c:4318\n  sample_ratio: 1.5\n", "c.yaml:5: tracing.sample_ratio: want a ratio from 0 to 1, got 1.5"},
		{"no port", "  endpoint: collector\n", `c.yaml:4: tracing.endpoint: want host:port or an absolute http(s) URL, got "collector"`},
		{"bad scheme", "  endpoint: ftp://c:21\n", `tracing.endpoint: want host:port or an absolute http(s) URL, got "ftp://c:21"`},
		{"unset header env", "  endpoint: c:4318\n  headers_env: {Authorization: NOPE}\n", "tracing.headers_env.Authorization: environment variable NOPE is not set or empty"},
		{"bad header name", "  endpoint: c:4318\n  headers_env: {'a b': OTLP_AUTH}\n", `invalid header name "a b"`},
		{"header value with a newline", "  endpoint: c:4318\n  headers_env: {X-T: BAD}\n", "the value of BAD contains CR, LF or NUL"},
		{"unknown key", "  endpont: c:4318\n", "endpont"},
	} {
		_, err := Parse([]byte(base+"tracing:\n"+tc.block), "c.yaml", env(map[string]string{"OTLP_AUTH": "x", "BAD": "a\nb"}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
