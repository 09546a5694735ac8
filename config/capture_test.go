package config

import (
	"strings"
	"testing"
	"time"
)

// audit.capture_events is refused without a key to seal with, and its
// retention defaults to a week only when capturing.
func TestCaptureEventsNeedsTheAuditKey(t *testing.T) {
	const up = "upstreams:\n  - {name: a, base_url: 'http://x'}\n"
	for _, tt := range []struct {
		name, doc string
		env       map[string]string
		want      string
	}{
		{"no key_env", up + "audit:\n  capture_events: true\n", nil, "c.yaml:4: audit.capture_events: needs audit.key_env"},
		{"key unset", up + "audit:\n  key_env: HG_CAP_KEY\n  capture_events: true\n", nil, "c.yaml:4: audit.key_env: environment variable HG_CAP_KEY is not set"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), "c.yaml", env(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want %q, got %v", tt.want, err)
			}
		})
	}
	c, err := Parse([]byte(up+"audit:\n  key_env: HG_CAP_KEY\n  capture_events: true\n"), "c.yaml", env(map[string]string{"HG_CAP_KEY": "k"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Audit.CaptureTTL.D() != 168*time.Hour {
		t.Errorf("capture_ttl %v, want 168h by default", c.Audit.CaptureTTL.D())
	}
	c, err = Parse([]byte(up+"audit:\n  key_env: HG_CAP_KEY\n  capture_events: true\n  capture_ttl: 24h\n"), "c.yaml", env(map[string]string{"HG_CAP_KEY": "k"}))
	if err != nil || c.Audit.CaptureTTL.D() != 24*time.Hour {
		t.Errorf("capture_ttl %v, %v", c.Audit.CaptureTTL.D(), err)
	}
	if c, _ := Parse([]byte(up), "c.yaml", env(nil)); c.Audit.CaptureEvents || c.Audit.CaptureTTL != 0 {
		t.Errorf("capture is on by default: %+v", c.Audit)
	}
}
