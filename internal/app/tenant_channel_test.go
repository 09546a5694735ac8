package app

import (
	"strings"
	"testing"

	"github.com/hookgate/hookgate/config"
)

// The send-time check, behind the load-time one: whatever a compiled
// tenant hook asks for, only the tenant's own channels are ever picked.
func TestTenantOwnChannelNeverLeavesTheTenant(t *testing.T) {
	cfg := &config.Config{
		Channels: []config.Channel{{Name: "ops"}, {Name: "acme-ops"}, {Name: "beta-ops"}},
		Tenants:  []config.Tenant{{ID: "acme", Channels: []string{"acme-ops"}}, {ID: "lonely"}},
	}
	cases := []struct{ tenant, want, got, err string }{
		{"acme", "", "acme-ops", ""},
		{"acme", "acme-ops", "acme-ops", ""},
		{"acme", "beta-ops", "", "not one of tenant acme's channels"},
		{"acme", "ops", "", "not one of tenant acme's channels"},
		{"lonely", "", "", "has no channel of its own"},
		{"ghost", "", "", "no tenant"},
	}
	for _, tc := range cases {
		got, err := tenantOwnChannel(cfg, tc.tenant, tc.want)
		if got != tc.got || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("tenant %s asking for %q: got %q, %v; want %q, %q", tc.tenant, tc.want, got, err, tc.got, tc.err)
		}
	}
}
