package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `hookgate serve` on a broken file refuses to start, and its first line
// says so; the problems follow.
func TestServeRefusesABrokenFileInOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hookgate.yaml")
	if err := os.WriteFile(path, []byte("upstreams: [{name: u, base_url: \"http://127.0.0.1:1\"}]\nhooks: [{id: h, event: bogus_event}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := runServe([]string{"--config", path}, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, stderr.String())
	}
	first, rest, _ := strings.Cut(stderr.String(), "\n")
	if first != "hookgate: refusing to start: the configuration "+path+" is invalid; nothing is served" {
		t.Errorf("first line: %q", first)
	}
	if !strings.Contains(rest, "bogus_event") {
		t.Errorf("the problem is not listed:\n%s", rest)
	}
}
