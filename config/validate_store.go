package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// validateStore checks the store, audit, admin tokens and channels, and
// resolves their secrets from the environment.
func validateStore(c *Config, root *yaml.Node, ps *problems, lookup func(string) (string, bool)) {
	switch c.Store.Driver {
	case "sqlite":
		// An unset path is the default of internal/app's sqlitePath.
	case "postgres":
		if c.Store.DSN == "" {
			ps.add(lineOf(root, "store", "dsn"), "store.dsn", "required for the postgres driver")
		}
	default:
		ps.add(lineOf(root, "store", "driver"), "store.driver", "want sqlite or postgres, got %q", c.Store.Driver)
	}
	if c.Audit.OnFull != "block" && c.Audit.OnFull != "drop" {
		ps.add(lineOf(root, "audit", "on_full"), "audit.on_full", "want block or drop, got %q", c.Audit.OnFull)
	}
	if c.Audit.QueueSize < 0 {
		ps.add(lineOf(root, "audit", "queue_size"), "audit.queue_size", "must not be negative")
	}
	c.Audit.Key = secret(c.Audit.KeyEnv, lineOf(root, "audit", "key_env"), "audit.key_env", ps, lookup)
	if c.Audit.CaptureEvents && c.Audit.KeyEnv == "" {
		ps.add(lineOf(root, "audit", "capture_events"), "audit.capture_events",
			"needs audit.key_env: captured events are kept only sealed with the audit key")
	}
	if c.Audit.CaptureTTL < 0 {
		ps.add(lineOf(root, "audit", "capture_ttl"), "audit.capture_ttl", "must not be negative")
	}

	if c.Admin.TokenEnv != "" {
		tok := secret(c.Admin.TokenEnv, lineOf(root, "admin", "token_env"), "admin.token_env", ps, lookup)
		c.Admin.Tokens = append([]AdminToken{{Name: "admin", TokenEnv: c.Admin.TokenEnv, Token: tok}}, c.Admin.Tokens...)
	}
	offset := 0
	if c.Admin.TokenEnv != "" {
		offset = 1
	}
	names := map[string]bool{}
	for i := offset; i < len(c.Admin.Tokens); i++ {
		t := &c.Admin.Tokens[i]
		path := fmt.Sprintf("admin.tokens[%d]", i-offset)
		line := lineOf(root, "admin", "tokens", i-offset)
		if t.Name == "" {
			ps.add(line, path+".name", "required: it is what approval records show")
		} else if names[t.Name] {
			ps.add(line, path+".name", "duplicate token name %q", t.Name)
		}
		names[t.Name] = true
		if t.TokenEnv == "" {
			ps.add(line, path+".token_env", "required")
			continue
		}
		t.Token = secret(t.TokenEnv, line, path+".token_env", ps, lookup)
		for j, id := range t.Tenants {
			if !hasTenant(c, id) {
				ps.add(line, fmt.Sprintf("%s.tenants[%d]", path, j), "no tenant %q is configured", id)
			}
		}
	}
	if c.Admin.SessionKeyEnv != "" {
		line := lineOf(root, "admin", "session_key_env")
		c.Admin.SessionKey = secret(c.Admin.SessionKeyEnv, line, "admin.session_key_env", ps, lookup)
		if k := c.Admin.SessionKey; k != "" && len(k) < 32 {
			ps.add(line, "admin.session_key_env", "the key in %s is %d bytes; want at least 32", c.Admin.SessionKeyEnv, len(k))
		}
	}

	chNames := map[string]bool{}
	for i := range c.Channels {
		ch := &c.Channels[i]
		path := fmt.Sprintf("channels[%d]", i)
		line := lineOf(root, "channels", i)
		if ch.Name == "" {
			ps.add(line, path+".name", "required")
		} else if chNames[ch.Name] {
			ps.add(line, path+".name", "duplicate channel name %q", ch.Name)
		}
		chNames[ch.Name] = true
		switch ch.Type {
		case "webhook":
			if ch.URL == "" {
				ps.add(line, path+".url", "required for a webhook channel")
			}
		case "slack", "feishu":
		default:
			ps.add(lineOf(root, "channels", i, "type"), path+".type", "want webhook, slack or feishu, got %q", ch.Type)
		}
		ch.Secret = secret(ch.SecretEnv, line, path+".secret_env", ps, lookup)
		ch.BotToken = secret(ch.BotTokenEnv, line, path+".bot_token_env", ps, lookup)
		ch.SigningSecret = secret(ch.SigningSecretEnv, line, path+".signing_secret_env", ps, lookup)
		ch.AppSecret = secret(ch.AppSecretEnv, line, path+".app_secret_env", ps, lookup)
		ch.VerificationToken = secret(ch.VerificationEnv, line, path+".verification_token_env", ps, lookup)
		ch.EncryptKey = secret(ch.EncryptKeyEnv, line, path+".encrypt_key_env", ps, lookup)
	}
}

// secret reads a secret from the environment variable named by env ("" is
// no secret). A named variable that is unset or empty is an error: an
// empty token must never authenticate anyone.
func hasTenant(c *Config, id string) bool {
	for _, t := range c.Tenants {
		if t.ID == id {
			return true
		}
	}
	return false
}

func secret(env string, line int, path string, ps *problems, lookup func(string) (string, bool)) string {
	if env == "" {
		return ""
	}
	v, ok := lookup(env)
	if !ok || v == "" {
		ps.add(line, path, "environment variable %s is not set or empty", env)
	}
	return v
}
