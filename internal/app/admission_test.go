package app

import (
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hookgate/hookgate/config"
)

// The admission limits come from the configuration, are shared by the
// proxy, the engine and the approval gate, and take a reload's bounds
// without losing what is held.
func TestAdmissionLimitsFollowTheConfiguration(t *testing.T) {
	doc := func(streams int) string {
		return "listen: 127.0.0.1:0\nadmin: {listen: \"127.0.0.1:0\"}\nupstreams: [{name: u, base_url: \"http://127.0.0.1:1\"}]\n" +
			"store: {path: " + filepath.Join(t.TempDir(), "h.db") + "}\n" +
			"limits: {max_concurrent_streams: " + strconv.Itoa(streams) + ", max_pending_approvals: 3, max_concurrent_hooks: 4}\n"
	}
	parse := func(s string) *config.Config {
		cfg, err := config.Parse([]byte(s), "t.yaml", func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	a, err := Build(parse(doc(2)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.limits.streams.Max() != 2 || a.limits.approvals.Max() != 3 || a.limits.hooks.Max() != 4 {
		t.Fatalf("limits %d %d %d", a.limits.streams.Max(), a.limits.approvals.Max(), a.limits.hooks.Max())
	}
	if a.services.hookSlots != a.limits.hooks {
		t.Fatal("the engine does not share the instance's hook limit")
	}
	a.limits.streams.TryAcquire()
	if err := a.Reload(parse(doc(5))); err != nil {
		t.Fatal(err)
	}
	if a.limits.streams.Max() != 5 || a.limits.streams.InUse() != 1 {
		t.Fatalf("after reload: max %d, in use %d", a.limits.streams.Max(), a.limits.streams.InUse())
	}
}
