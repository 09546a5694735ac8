package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// repoRoot is the hookgate checkout this module sits in.
const repoRoot = ".."

var (
	buildOnce sync.Once
	buildDir  string
	builtBin  string
	buildErr  error
	buildLog  []byte
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// hookgateBinary builds hookgate once per test run with the script the
// Dockerfile runs, and returns its path.
func hookgateBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "hookgate-deploy-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "hookgate")
		cmd := exec.Command("sh", filepath.Join(repoRoot, "scripts", "build-static.sh"), builtBin)
		cmd.Env = append(os.Environ(), "HOOKGATE_VERSION=deploy-test")
		buildLog, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("scripts/build-static.sh: %v\n%s", buildErr, buildLog)
	}
	return builtBin
}

// validateConfig writes a hookgate.yaml into a folder of its own and runs
// `hookgate validate` on it with the given environment (and nothing else
// of the test's), failing the test with hookgate's report.
func validateConfig(t *testing.T, name, yaml string, env map[string]string) {
	t.Helper()
	bin := hookgateBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "hookgate.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "validate", "--config", path)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "XDG_STATE_HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: hookgate validate refused the configuration: %v\n%s\n--- configuration:\n%s", name, err, out, yaml)
	}
	if !strings.Contains(string(out), ": ok (") {
		t.Fatalf("%s: hookgate validate did not say ok:\n%s", name, out)
	}
}

// dummySecret is a value for an environment variable that hookgate reads
// a secret from: the audit key must be 32 bytes, the console's session
// key at least 32, the others any text.
func dummySecret(name string) string {
	switch name {
	case "HOOKGATE_AUDIT_KEY":
		return strings.Repeat("ab", 32)
	case "HOOKGATE_SESSION_KEY":
		return strings.Repeat("session-key-", 4)
	case "HOOKGATE_PG_DSN":
		return "postgres://hookgate:secret@127.0.0.1:5432/hookgate?sslmode=disable"
	case "HOOKGATE_REDIS_ADDR":
		return "127.0.0.1:6379"
	}
	return "test-" + strings.ToLower(name)
}
