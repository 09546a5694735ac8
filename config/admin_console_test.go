package config

import (
	"strings"
	"testing"
)

// admin.session_key_env is read at load (at least 32 bytes);
// admin.tokens[].tenants must name configured tenants; insecure_cookies
// is a plain switch.
func TestAdminConsoleSettings(t *testing.T) {
	base := "upstreams:\n  - {name: a, base_url: 'http://x', api_key_env: UP}\ntenants:\n  - {id: acme, key_hashes: [" +
		strings.Repeat("a", 64) + "]}\nadmin:\n  tokens:\n    - {name: ann, token_env: ANN, tenants: [acme]}\n"
	vars := map[string]string{"UP": "k", "ANN": "t", "KEY": strings.Repeat("k", 32), "SHORT": "short"}
	cfg, err := Parse([]byte(base+"  session_key_env: KEY\n  insecure_cookies: true\n"), "c.yaml", env(vars))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Admin.SessionKey != vars["KEY"] || !cfg.Admin.InsecureCookies || len(cfg.Admin.Tokens[0].Tenants) != 1 {
		t.Fatalf("admin %+v", cfg.Admin)
	}
	for _, tc := range []struct{ extra, want string }{
		{"  session_key_env: SHORT\n", "want at least 32"},
		{"  session_key_env: UNSET\n", "UNSET is not set"},
	} {
		if _, err := Parse([]byte(base+tc.extra), "c.yaml", env(vars)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.extra, err, tc.want)
		}
	}
	typo := strings.Replace(base, "tenants: [acme]", "tenants: [acme, acmee]", 1)
	if _, err := Parse([]byte(typo), "c.yaml", env(vars)); err == nil || !strings.Contains(err.Error(), `admin.tokens[0].tenants[1]: no tenant "acmee"`) {
		t.Errorf("unknown tenant: %v", err)
	}
}
