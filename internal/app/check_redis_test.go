package app

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/config"
)

// A `redis:` block with several problems is refused with each on a line
// of its own, every one with the entry's file and line.
func TestCheckReportsEachRedisProblem(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hookgate.yaml")
	writeFile(t, path, "listen: 127.0.0.1:0\nupstreams: [{name: u, base_url: \"http://127.0.0.1:1\"}]\n"+`hooks:
  - id: fine
    event: pre_tool_use
    handler: {type: builtin, name: rate_limit, with: {limit: 1, window: 1m}}
  - id: both
    event: pre_tool_use
    handler:
      type: builtin
      name: rate_limit
      with:
        limit: 3
        window: 1m
        redis: {master_name: m, sentinel_addrs: ["127.0.0.1:26379"], cluster_addrs: ["127.0.0.1:7000", nohost]}
`)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var ce *CheckError
	if err := Check(cfg); !errors.As(err, &ce) {
		t.Fatalf("Check: %v", err)
	}
	want := []string{
		path + ":7: hooks[1] both: handler (builtin): builtin rate_limit: with.redis: cluster_addrs: excludes sentinel_addrs and master_name",
		path + `:7: hooks[1] both: handler (builtin): builtin rate_limit: with.redis: cluster_addrs[1]: want host:port, got "nohost"`,
	}
	if len(ce.Problems) != len(want) {
		t.Fatalf("%d problems, want %d:\n%v", len(ce.Problems), len(want), ce)
	}
	for i, p := range ce.Problems {
		if got := p.String(); !strings.HasPrefix(got, want[i]) || strings.Contains(got, "\n") {
			t.Errorf("problem %d:\n %s\nwant it to start\n %s", i, got, want[i])
		}
		if ce.Fields[i] != "hooks[1].handler" {
			t.Errorf("problem %d is about %q", i, ce.Fields[i])
		}
	}
}
