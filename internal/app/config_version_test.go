package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// writeFleetFiles writes a configuration with a tenant hooks file into
// dir and returns the main file's path.
func writeFleetFiles(t *testing.T, dir, tenantHooks string) string {
	t.Helper()
	path := filepath.Join(dir, "hookgate.yaml")
	writeFile(t, path, baseConfig(dir)+"store: {path: h.db}\n"+
		"tenants:\n  - {id: acme, upstream: u, keys_env: READY_TENANT_KEY, api_key_env: READY_TENANT_KEY, hooks_file: acme-hooks.yaml}\n")
	writeFile(t, filepath.Join(dir, "acme-hooks.yaml"), tenantHooks)
	return path
}

const acmeHooks = "- id: acme-deny\n  event: pre_tool_use\n  matcher: \"^rm$\"\n  handler: {type: builtin, name: deny_patterns}\n"

// The hash is of the files' content: two instances on identical files in
// other folders, with other secret values in their environment, report
// the same hash, and no secret is in what the endpoint shows. An edit of
// the tenant's hooks file is a new hash; a broken edit keeps the old
// configuration and its hash.
func TestConfigVersionIsTheHashOfTheFiles(t *testing.T) {
	t.Setenv("READY_TEST_TOKEN", "tok-ready-secret")
	t.Setenv("READY_TENANT_KEY", "tenant-key-one")
	a := startFile(t, writeFleetFiles(t, t.TempDir(), acmeHooks))
	t.Setenv("READY_TENANT_KEY", "tenant-key-two")
	t.Setenv("READY_TEST_TOKEN", "tok-ready-secret-2")
	dirB := t.TempDir()
	b := startFile(t, writeFleetFiles(t, dirB, acmeHooks))

	status, va := getJSON(t, a.AdminURL()+"/admin/config/version", "tok-ready-secret")
	if status != 200 {
		t.Fatalf("/admin/config/version: %d %v", status, va)
	}
	_, vb := getJSON(t, b.AdminURL()+"/admin/config/version", "tok-ready-secret-2")
	hash, _ := va["hash"].(string)
	if len(hash) != 64 || vb["hash"] != hash {
		t.Fatalf("identical files, two hashes: %v and %v", va, vb)
	}
	files, _ := vb["files"].([]any)
	if len(files) != 2 || files[0] != filepath.Join(dirB, "hookgate.yaml") || files[1] != filepath.Join(dirB, "acme-hooks.yaml") || va["applied_at"] == "" {
		t.Errorf("version: %v", vb)
	}
	for _, secret := range []string{"tok-ready-secret", "tenant-key-one", "tenant-key-two"} {
		if strings.Contains(hash, secret) || strings.Contains(vb["hash"].(string), secret) {
			t.Errorf("a secret in the version")
		}
	}
	assertConfigInfo(t, b, hash)

	// An edit of the tenant's hooks file is another version.
	writeFile(t, filepath.Join(dirB, "acme-hooks.yaml"), acmeHooks+"# edited\n")
	if err := b.ReloadFile(filepath.Join(dirB, "hookgate.yaml")); err != nil {
		t.Fatal(err)
	}
	_, vb = getJSON(t, b.AdminURL()+"/admin/config/version", "tok-ready-secret-2")
	edited, _ := vb["hash"].(string)
	if edited == hash || len(edited) != 64 {
		t.Fatalf("the edit did not change the hash: %v", vb)
	}
	assertConfigInfo(t, b, edited)

	// A broken main file is refused: the old configuration and its hash
	// stay.
	main := filepath.Join(dirB, "hookgate.yaml")
	good, _ := os.ReadFile(main)
	writeFile(t, main, string(good)+"hooks: [{id: h, event: bogus_event}]\n")
	if err := b.ReloadFile(main); err == nil {
		t.Fatal("the broken file was applied")
	}
	if _, v := getJSON(t, b.AdminURL()+"/admin/config/version", "tok-ready-secret-2"); v["hash"] != edited {
		t.Errorf("a refused reload changed the version: %v", v)
	}
	assertConfigInfo(t, b, edited)
	if len(b.CurrentConfig().Hooks) != 0 {
		t.Errorf("the refused configuration's hooks are served")
	}
}

// assertConfigInfo checks that hookgate_config_info has one series, for
// hash.
func assertConfigInfo(t *testing.T, a *App, hash string) {
	t.Helper()
	want := "# HELP hookgate_config_info The configuration served now: 1 for the hash of its files (GET /admin/config/version tells more).\n" +
		"# TYPE hookgate_config_info gauge\nhookgate_config_info{hash=\"" + hash + "\"} 1\n"
	if err := testutil.GatherAndCompare(a.Registry, strings.NewReader(want), "hookgate_config_info"); err != nil {
		t.Error(err)
	}
}
