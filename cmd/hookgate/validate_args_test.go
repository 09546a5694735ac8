package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `hookgate validate FILE` reads FILE, not hookgate.yaml.
func TestValidateReadsTheFileNamedAsAnArgument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "named.yaml")
	os.WriteFile(path, []byte("listen: 127.0.0.1:8787\nupstreams:\n  - name: openai\n    base_ur: https://api.example.test\n"), 0o600)
	var out, errOut bytes.Buffer
	if code := run([]string{"validate", path}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "named.yaml:4") {
		t.Fatalf("the named file was not the one read:\n%s", errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"validate", path, "other.yaml"}, &out, &errOut); code != 2 {
		t.Fatalf("two files: exit %d, want 2; stderr: %s", code, errOut.String())
	}
}
