package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hookgate/hookgate/hooks"
)

// checkTenantHookChannels refuses a tenant's hook that would send to a
// channel that is not the tenant's own: an approval or notify naming
// another channel (the operator's, another tenant's), a notify or a
// pre_response in send mode when the tenant has no channel (its message
// would have nowhere of its own to go). A tenant's message never falls
// back to the operator's channels; the wiring checks this again when it
// sends.
func checkTenantHookChannels(t *Tenant, s *hooks.Spec, i int, ps *problems) {
	own := "none"
	if len(t.Channels) > 0 {
		own = strings.Join(t.Channels, ", ")
	}
	if s.Event == hooks.PreResponse && s.Mode == string(hooks.Send) && len(t.Channels) == 0 {
		ps.add(s.Line, fmt.Sprintf("[%d].mode", i), "mode send needs a channel of tenant %s's own, and it has none (tenants[].channels)", t.ID)
	}
	if s.Handler.Type != "builtin" || (s.Handler.Name != "approval" && s.Handler.Name != "notify") {
		return
	}
	path := fmt.Sprintf("[%d].handler.with.channel", i)
	v, set := s.Handler.With["channel"]
	ch, isString := v.(string)
	switch {
	case set && !isString:
		ps.add(s.Line, path, "want a channel name")
	case ch != "" && !slices.Contains(t.Channels, ch):
		ps.add(s.Line, path, "channel %q is not one of tenant %s's channels (its channels: %s)", ch, t.ID, own)
	case ch == "" && s.Handler.Name == "notify" && len(t.Channels) == 0:
		ps.add(s.Line, fmt.Sprintf("[%d]", i), "a notify hook needs a channel of tenant %s's own, and it has none (tenants[].channels)", t.ID)
	}
}
