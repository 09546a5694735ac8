package config

import (
	"errors"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestParseValidConfigAppliesDefaults(t *testing.T) {
	doc := `
listen: 127.0.0.1:9000
upstreams:
  - name: openai
    base_url: https://api.example.test
    api_key_env: TEST_KEY
hooks:
  - id: h1
    event: pre_tool_use
    handler: {type: builtin, name: deny_patterns}
`
	cfg, err := Parse([]byte(doc), "c.yaml", env(map[string]string{"TEST_KEY": "sk-test"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.1:9000" || cfg.Admin.Listen != DefaultAdminListen {
		t.Errorf("listen %q admin %q", cfg.Listen, cfg.Admin.Listen)
	}
	if cfg.Upstreams[0].Provider != "openai" || cfg.Upstreams[0].APIKey != "sk-test" {
		t.Errorf("upstream %+v", cfg.Upstreams[0])
	}
	if cfg.Limits.MaxRequestBytes != DefaultMaxRequestBytes {
		t.Errorf("max request bytes %d", cfg.Limits.MaxRequestBytes)
	}
	if l := cfg.Limits; l.MaxConcurrentStreams != DefaultMaxConcurrentStreams || l.MaxPendingApprovals != DefaultMaxPendingApprovals || l.MaxConcurrentHooks != DefaultMaxConcurrentHooks {
		t.Errorf("admission limits %+v", l)
	}
	if cfg.Timeouts.ShutdownGrace.D() != DefaultShutdownGrace {
		t.Errorf("shutdown grace %v", cfg.Timeouts.ShutdownGrace.D())
	}
	if h := cfg.Hooks[0]; h.Line != 8 || !h.Trusted {
		t.Errorf("hook line %d trusted %v", h.Line, h.Trusted)
	}
}

func TestParseReportsEveryProblemWithItsLine(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string // substrings, each expected in some problem
	}{
		{"typo in a key", "listen: 127.0.0.1:1\nupstreams:\n  - name: a\n    base_ur: http://x\n", []string{`c.yaml:4: unknown key "base_ur"`}},
		{"typo in a hook key", "upstreams:\n  - {name: a, base_url: 'http://x'}\nhooks:\n  - id: x\n    event: pre_tool_use\n    matchr: foo\n", []string{`c.yaml:6: unknown key "matchr"`}},
		{"bad values", "listen: nope\nupstreams:\n  - name: a\n    provider: vertex\n    base_url: ftp://x\n  - name: a\n    base_url: http://h/v1\n", []string{
			"c.yaml:1: listen: want host:port",
			`c.yaml:4: upstreams[0].provider: unknown provider "vertex"`,
			"c.yaml:5: upstreams[0].base_url: want an absolute http(s) URL",
			`c.yaml:6: upstreams[1].name: duplicate upstream name "a"`,
			"c.yaml:7: upstreams[1].base_url: leave /v1 out",
		}},
		{"unset env", "upstreams:\n  - name: a\n    base_url: ${NOPE_URL}\n", []string{"c.yaml:3: environment variable NOPE_URL is not set"}},
		{"bad size", "upstreams:\n  - {name: a, base_url: 'http://x'}\nlimits:\n  max_request_bytes: lots\n", []string{"c.yaml:4:", "invalid size"}},
		{"hook event", "upstreams:\n  - {name: a, base_url: 'http://x'}\nhooks:\n  - id: x\n    event: pre_tool\n  - id: x\n    event: stop\n", []string{`c.yaml:5: hooks[0].event: unknown event "pre_tool"`, `c.yaml:6: hooks[1].id: duplicate hook id "x"`}},
		{"no upstream", "listen: 127.0.0.1:1\n", []string{"upstreams: at least one upstream is required"}},
		{"admission limits", "upstreams:\n  - {name: a, base_url: 'http://x'}\nlimits:\n  max_concurrent_streams: -1\n  max_pending_approvals: 3\n  max_concurrent_hooks: -5\n", []string{
			"c.yaml:4: limits.max_concurrent_streams: want a positive number",
			"c.yaml:6: limits.max_concurrent_hooks: want a positive number",
		}},
		{"admission limit not a number", "upstreams:\n  - {name: a, base_url: 'http://x'}\nlimits:\n  max_pending_approvals: many\n", []string{"c.yaml:4:", "many"}},
		{"shutdown grace", "upstreams:\n  - {name: a, base_url: 'http://x'}\ntimeouts:\n  shutdown_grace: soon\n", []string{`c.yaml:4: invalid duration "soon"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), "c.yaml", env(nil))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("want *config.Error, got %v", err)
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("missing %q in:\n%s", w, msg)
				}
			}
		})
	}
}

func TestParseAdmissionLimitsAndShutdownGrace(t *testing.T) {
	doc := "upstreams:\n  - {name: a, base_url: 'http://x'}\nlimits:\n  max_concurrent_streams: 8\n  max_pending_approvals: 2\n  max_concurrent_hooks: 4\ntimeouts:\n  shutdown_grace: 5s\n"
	cfg, err := Parse([]byte(doc), "c.yaml", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.Limits; l.MaxConcurrentStreams != 8 || l.MaxPendingApprovals != 2 || l.MaxConcurrentHooks != 4 {
		t.Errorf("limits %+v", l)
	}
	if cfg.Timeouts.ShutdownGrace.D().String() != "5s" {
		t.Errorf("shutdown grace %v", cfg.Timeouts.ShutdownGrace.D())
	}
}

func TestEnvExpansionSkipsScriptSource(t *testing.T) {
	doc := "upstreams:\n  - {name: a, base_url: '${U}'}\nhooks:\n  - id: s\n    event: stop\n    handler:\n      type: script\n      source: 'function handle(e) { return {decision: `${e.x}`} }'\n"
	cfg, err := Parse([]byte(doc), "c.yaml", env(map[string]string{"U": "http://up.test"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Upstreams[0].BaseURL != "http://up.test" {
		t.Errorf("base_url %q", cfg.Upstreams[0].BaseURL)
	}
	if !strings.Contains(cfg.Hooks[0].Handler.Source, "${e.x}") {
		t.Errorf("script source was expanded: %q", cfg.Hooks[0].Handler.Source)
	}
}
