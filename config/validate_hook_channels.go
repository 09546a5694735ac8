package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// validateHookChannels refuses approval and notify hooks whose channel is
// not configured: at run time an approval card would go nowhere (the agent
// would wait out the timeout) and a message would be lost, with only a log
// line to say why.
func validateHookChannels(c *Config, root *yaml.Node, ps *problems) {
	names := map[string]bool{}
	for _, ch := range c.Channels {
		names[ch.Name] = true
	}
	for i, h := range c.Hooks {
		if h.Handler.Type != "builtin" || (h.Handler.Name != "approval" && h.Handler.Name != "notify") {
			continue
		}
		path := fmt.Sprintf("hooks[%d].handler.with.channel", i)
		line := lineOf(root, "hooks", i, "handler", "with", "channel")
		ch, isString := h.Handler.With["channel"].(string)
		if _, set := h.Handler.With["channel"]; set && !isString {
			ps.add(line, path, "want a channel name")
			continue
		}
		switch {
		case ch != "" && !names[ch]:
			ps.add(line, path, "channel %q is not configured (channels: %s)", ch, channelList(c))
		case ch == "" && h.Handler.Name == "notify" && len(c.Channels) == 0:
			ps.add(lineOf(root, "hooks", i), fmt.Sprintf("hooks[%d]", i), "a notify hook needs a channel, and none is configured under channels")
		}
	}
}

func channelList(c *Config) string {
	if len(c.Channels) == 0 {
		return "none configured"
	}
	s := ""
	for i, ch := range c.Channels {
		if i > 0 {
			s += ", "
		}
		s += ch.Name
	}
	return s
}
