package config

import "go.yaml.in/yaml/v3"

// validateLimits checks the admission limits. Zero (or absent) takes the
// default; a negative bound is a mistake, never "no limit": hookgate has
// no unbounded mode.
func validateLimits(c *Config, root *yaml.Node, ps *problems) {
	for _, l := range []struct {
		key string
		v   int
	}{
		{"max_concurrent_streams", c.Limits.MaxConcurrentStreams},
		{"max_pending_approvals", c.Limits.MaxPendingApprovals},
		{"max_concurrent_hooks", c.Limits.MaxConcurrentHooks},
		{"max_connections", c.Limits.MaxConnections},
		{"max_connections_per_client", c.Limits.MaxConnectionsPerClient},
		{"max_inflight_request_bytes", int(c.Limits.MaxInflightRequestBytes)},
		{"script_max_memory", int(c.Limits.ScriptMaxMemory)},
	} {
		if l.v < 0 {
			ps.add(lineOf(root, "limits", l.key), "limits."+l.key, "want a positive number (0 or absent takes the default), got %d", l.v)
		}
	}
}

// minScriptMaxMemory is the smallest script memory budget: below it the
// heap's ordinary noise would stop every script (hooks/script_memory.go).
const minScriptMaxMemory = 1 << 20

func validateScriptMemory(c *Config, root *yaml.Node, ps *problems) {
	if m := c.Limits.ScriptMaxMemory; m > 0 && m < minScriptMaxMemory {
		ps.add(lineOf(root, "limits", "script_max_memory"), "limits.script_max_memory", "want at least 1MiB, got %d bytes", int64(m))
	}
}
