package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingServiceFailsWhenRequired runs a missing-service test in a
// child process, both ways: skipped when services are optional, failed
// when the test command requires them.
func TestMissingServiceFailsWhenRequired(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		Redis(t)
		t.Log("REACHED: the test went on without Redis")
		return
	}
	run := func(require string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingServiceFailsWhenRequired$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", RedisEnv+"=", requireEnv+"="+require)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	if err != nil || !strings.Contains(out, "--- SKIP") || !strings.Contains(out, "SKIPPED: "+RedisEnv) || strings.Contains(out, "REACHED") {
		t.Errorf("optional: err=%v, want a loud skip:\n%s", err, out)
	}
	out, err = run("1")
	if err == nil || !strings.Contains(out, "--- FAIL") || !strings.Contains(out, "did not start it") || strings.Contains(out, "REACHED") {
		t.Errorf("required: err=%v, want a failure:\n%s", err, out)
	}
}

func TestPresentServiceIsReturned(t *testing.T) {
	t.Setenv(PostgresEnv, "postgres://x@127.0.0.1:1/db")
	if got := Postgres(t); got != "postgres://x@127.0.0.1:1/db" {
		t.Errorf("got %q", got)
	}
}
