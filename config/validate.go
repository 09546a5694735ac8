package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/providers"
)

// validate checks what the structure alone cannot: required values, known
// enumerations, addresses and URLs. Hook entries get a first check here
// (id, event); the hook engine's compiler checks the rest.
func validate(c *Config, root *yaml.Node, ps *problems, lookup func(string) (string, bool)) {
	checkListen(c.Listen, lineOf(root, "listen"), "listen", ps)
	checkListen(c.Admin.Listen, lineOf(root, "admin", "listen"), "admin.listen", ps)
	if len(c.Upstreams) == 0 {
		ps.add(lineOf(root), "upstreams", "at least one upstream is required")
	}
	names := map[string]bool{}
	for i := range c.Upstreams {
		u := &c.Upstreams[i]
		path := fmt.Sprintf("upstreams[%d]", i)
		line := lineOf(root, "upstreams", i)
		switch {
		case u.Name == "":
			ps.add(line, path+".name", "required")
		case names[u.Name]:
			ps.add(lineOf(root, "upstreams", i, "name"), path+".name", "duplicate upstream name %q", u.Name)
		}
		names[u.Name] = true
		if !providers.KnownProvider(u.Provider) {
			ps.add(lineOf(root, "upstreams", i, "provider"), path+".provider", "unknown provider %q (want %s)", u.Provider, strings.Join(providers.Providers(), " or "))
		}
		if pu, err := url.Parse(u.BaseURL); u.BaseURL == "" || err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			ps.add(lineOf(root, "upstreams", i, "base_url"), path+".base_url", "want an absolute http(s) URL, got %q", u.BaseURL)
		} else if r := routeRootIn(pu.Path, u.Provider); r != "" {
			ps.add(lineOf(root, "upstreams", i, "base_url"), path+".base_url", "leave %s out: a request to %s/... goes to base_url + %s/...", r, r, r)
		}
		if u.APIKeyEnv != "" {
			v, ok := lookup(u.APIKeyEnv)
			if !ok || v == "" {
				ps.add(lineOf(root, "upstreams", i, "api_key_env"), path+".api_key_env", "environment variable %s is not set", u.APIKeyEnv)
			}
			u.APIKey = v
		}
	}
	for i, r := range c.PassthroughRoutes {
		if !strings.HasPrefix(r, "/") {
			ps.add(lineOf(root, "passthrough_routes", i), fmt.Sprintf("passthrough_routes[%d]", i), "a route is a path starting with /, got %q", r)
		}
	}
	ic := c.Interception
	for i, h := range ic.MetadataHeaders {
		if credentialHeaders[strings.ToLower(h)] {
			ps.add(lineOf(root, "interception", "metadata_headers", i), fmt.Sprintf("interception.metadata_headers[%d]", i), "%s carries credentials and is never passed to hooks", h)
		}
	}
	if ic.ContextPosition != "prepend" && ic.ContextPosition != "append" {
		ps.add(lineOf(root, "interception", "context_position"), "interception.context_position", "want prepend or append, got %q", ic.ContextPosition)
	}
	if ic.OnBlock != "respond" && ic.OnBlock != "retry" {
		ps.add(lineOf(root, "interception", "on_block"), "interception.on_block", "want respond or retry, got %q", ic.OnBlock)
	}
	validateLimits(c, root, ps)
	validateScriptMemory(c, root, ps)
	validateStore(c, root, ps, lookup)
	validateTenants(c, root, ps, lookup)
	validateTracing(c, root, ps, lookup)
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		ps.add(lineOf(root, "log", "level"), "log.level", "want debug, info, warn or error, got %q", c.Log.Level)
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		ps.add(lineOf(root, "log", "format"), "log.format", "want text or json, got %q", c.Log.Format)
	}
	for i, h := range c.Hooks {
		if h.Handler.Type == "builtin" && h.Handler.Name == "approval" && len(c.Admin.Tokens) == 0 {
			ps.add(h.Line, fmt.Sprintf("hooks[%d]", i), "an approval hook needs admin.token_env (or admin.tokens): without an admin token nobody could answer through the admin API")
			break
		}
	}
	validateHookChannels(c, root, ps)
	validateDryRun(c, root, ps)
	ids := map[string]bool{}
	for i, h := range c.Hooks {
		path := fmt.Sprintf("hooks[%d]", i)
		if h.ID == "" {
			ps.add(h.Line, path+".id", "required")
		} else if ids[h.ID] {
			ps.add(lineOf(root, "hooks", i, "id"), path+".id", "duplicate hook id %q", h.ID)
		}
		ids[h.ID] = true
		if !h.Event.Valid() {
			ps.add(lineOf(root, "hooks", i, "event"), path+".event", "unknown event %q", h.Event)
		}
	}
}

// credentialHeaders may hold keys or session secrets; hooks never see them.
var credentialHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "x-api-key": true,
	"api-key": true, "cookie": true, "set-cookie": true,
}

// checkListen refuses an address the listener could not open: not
// host:port, or a port outside 0-65535 (0 picks a free port).
func checkListen(addr string, line int, path string, ps *problems) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		ps.add(line, path, "want host:port, got %q", addr)
		return
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		ps.add(line, path, "want a port from 0 to 65535, got %q", port)
	}
}
