package builtin

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

// codeText is n bytes of source-like text without secrets (but with the
// words that wake the case-insensitive kinds: key, token, secret).
func codeText(n int) string {
	const para = `// loadConfig reads the settings file and returns the parsed value.
func loadConfig(path string) (*Config, error) {
	raw, err := os.ReadFile(path) // the key and token names come from the environment
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var cfg Config
	if err := yaml.Unmarshal(raw, &cfg); err != nil { // secret values are never logged
		return nil, err
	}
	return &cfg, nil
}
`
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(para)
	}
	return b.String()[:n]
}

func BenchmarkSecretGuard(b *testing.B) {
	ghp := fake("ghp_", alnum, 36)
	content4k, content64k := codeText(4<<10), codeText(64<<10)
	for _, bc := range []struct {
		name  string
		with  map[string]any
		input map[string]any
	}{
		{"command", nil, map[string]any{
			"command": "git commit -am 'fix: handle a nil pointer in the parser' && git push origin main",
			"cwd":     "/home/user/project", "timeout": 30.0,
		}},
		{"write-4KiB", nil, map[string]any{"path": "internal/config/load.go", "content": content4k}},
		{"write-64KiB", nil, map[string]any{"path": "internal/config/load.go", "content": content64k}},
		{"write-64KiB-generic", map[string]any{"kinds": anySlice(SecretKinds())}, map[string]any{"path": "x.go", "content": content64k}},
		{"nested", nil, map[string]any{
			"request": map[string]any{
				"method": "POST", "url": "https://api.example.com/v1/orders",
				"headers": map[string]any{"Content-Type": "application/json", "X-Request-Id": "c0ffee"},
				"body":    map[string]any{"items": []any{"a", "b", "c"}, "note": "deliver before noon"},
			},
		}},
		{"hit", nil, map[string]any{"command": "git clone https://" + ghp + "@github.com/o/r"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h, err := NewSecretGuard(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: bc.with})
			if err != nil {
				b.Fatal(err)
			}
			ev := &hooks.Event{Event: hooks.PreToolUse, ToolName: "exec", ToolInput: bc.input}
			b.SetBytes(int64(inputBytes(bc.input)))
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if _, err := h.Handle(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// inputBytes is the length of the strings in v, keys included.
func inputBytes(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case map[string]any:
		n := 0
		for k, e := range x {
			n += len(k) + inputBytes(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += inputBytes(e)
		}
		return n
	}
	return 0
}

func BenchmarkRateLimitMemory(b *testing.B) {
	newRL := func(b *testing.B) hooks.Handler {
		h, err := NewRateLimit(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: map[string]any{"limit": 1 << 40, "window": "1m", "per_agent": true}})
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	ctx := context.Background()
	b.Run("one-key", func(b *testing.B) {
		h := newRL(b)
		ev := &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", Agent: "builder", ToolName: "exec"}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Handle(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("10k-keys", func(b *testing.B) {
		h := newRL(b)
		evs := make([]*hooks.Event, 10_000)
		for i := range evs {
			evs[i] = &hooks.Event{Event: hooks.PreToolUse, Tenant: "t" + strconv.Itoa(i%100), Agent: "a" + strconv.Itoa(i/100), ToolName: "exec"}
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := h.Handle(ctx, evs[i%len(evs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		h := newRL(b)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			ev := &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", Agent: "builder", ToolName: "exec"}
			for pb.Next() {
				if _, err := h.Handle(ctx, ev); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("blocked", func(b *testing.B) {
		h, err := NewRateLimit(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: map[string]any{"limit": 1, "window": "1h"}})
		if err != nil {
			b.Fatal(err)
		}
		ev := &hooks.Event{Event: hooks.PreToolUse, Tenant: "acme", ToolName: "exec"}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Handle(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}
