package deploy

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

const unitPath = "systemd/hookgate.service"

// unitSettings reads a unit file's [Service] section; a key set twice
// keeps every value, in order.
func unitSettings(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[]")
		case section == "Service":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: not a setting: %q", path, line)
			}
			out[k] = append(out[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSystemdUnit checks the unit's hardening and stop timing against the
// configuration it ships with, that hookgate validates that configuration,
// and that systemd itself reads the unit without a complaint.
func TestSystemdUnit(t *testing.T) {
	s := unitSettings(t, unitPath)
	one := func(k string) string {
		if len(s[k]) != 1 {
			t.Errorf("%s: want one %s=, got %q", unitPath, k, s[k])
			return ""
		}
		return s[k][0]
	}
	for k, want := range map[string]string{
		"DynamicUser":     "yes",
		"StateDirectory":  "hookgate",
		"ProtectSystem":   "strict",
		"NoNewPrivileges": "yes",
		"KillSignal":      "SIGTERM",
		"KillMode":        "mixed",
		"ExecStart":       "/usr/local/bin/hookgate serve --config /etc/hookgate/hookgate.yaml",
		// hookgate serve reloads on SIGHUP (cmd/hookgate/serve.go).
		"ExecReload":              "/bin/kill -HUP $MAINPID",
		"CapabilityBoundingSet":   "",
		"RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
	} {
		if got := one(k); got != want {
			t.Errorf("%s=%q, want %q", k, got, want)
		}
	}

	raw, err := os.ReadFile("systemd/hookgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if got := str(cfg, "store", "path"); got != "/var/lib/hookgate/hookgate.db" {
		t.Errorf("store.path = %q, want it in the unit's StateDirectory", got)
	}
	drain, grace := hookgateDefaultDrain, 30*time.Second
	if v := str(cfg, "timeouts", "drain_delay"); v != "" {
		drain = mustDuration(t, "timeouts.drain_delay", v)
	}
	if v := str(cfg, "timeouts", "shutdown_grace"); v != "" {
		grace = mustDuration(t, "timeouts.shutdown_grace", v)
	}
	stop := mustDuration(t, "TimeoutStopSec", one("TimeoutStopSec"))
	if stop < drain+grace+5*time.Second {
		t.Errorf("TimeoutStopSec=%v, want at least drain %v + shutdown_grace %v + 5s", stop, drain, grace)
	}
	env := map[string]string{}
	for _, name := range envNames(cfg) {
		env[name] = dummySecret(name)
	}
	validateConfig(t, "systemd/hookgate.yaml", string(raw), env)

	// systemd's own reading, with ExecStart on the binary just built
	// (verify wants the command to exist).
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed: the unit was checked by the rules above only")
	}
	unit, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	unit = bytes.ReplaceAll(unit, []byte("/usr/local/bin/hookgate"), []byte(hookgateBinary(t)))
	copyPath := filepath.Join(t.TempDir(), "hookgate.service")
	if err := os.WriteFile(copyPath, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", copyPath).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("hookgate.service")) {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
