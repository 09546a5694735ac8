package app

import (
	"context"
	"os"
	"testing"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
)

const benchCaptureConfig = `
upstreams:
  - {name: mock, base_url: "http://127.0.0.1:9"}
audit:
  key_env: HG_BENCH_AUDIT_KEY
  on_full: drop
  capture_events: true
hooks:
  - id: allow-all
    event: pre_tool_use
    handler: {type: script, source: "function handle(e) { return {decision: 'allow'} }"}
  - id: no-rm
    event: pre_tool_use
    handler: {type: builtin, name: deny_patterns, with: {defaults: [shell]}}
`

// BenchmarkDispatchCapture is the request path's cost of
// audit.capture_events: a dispatch through three hooks with and without
// the capture (on_full: drop, so a slow disk never holds the loop).
func BenchmarkDispatchCapture(b *testing.B) {
	for _, capture := range []bool{false, true} {
		name := "off"
		if capture {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			b.Setenv("HG_BENCH_AUDIT_KEY", testAuditKey)
			cfg, err := config.Parse([]byte(benchCaptureConfig), "bench.yaml", os.LookupEnv)
			if err != nil {
				b.Fatal(err)
			}
			cfg.BaseDir = b.TempDir()
			p, err := OpenPersistence(ctx, cfg, nil, quietLogger())
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close(ctx)
			sv := &services{}
			if capture {
				sv.capture = newEventCapture(cfg, p.Audit)
			}
			e, err := buildEngine(cfg, cfg.Hooks, quietLogger(), sv)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			ev := &hooks.Event{Event: hooks.PreToolUse, EventID: "e", SessionID: "s", ToolName: "exec", ToolInput: map[string]any{"command": "ls -la /srv"}}
			b.ReportAllocs()
			for b.Loop() {
				e.Dispatch(ctx, ev)
			}
		})
	}
}
