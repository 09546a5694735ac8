package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	tenantIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	sha256Hex       = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// HashKey is how virtual keys are stored: the hex sha256 of the key.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// validateTenants checks tenants, resolves their keys to hashes and their
// credentials from the environment.
func validateTenants(c *Config, root *yaml.Node, ps *problems, lookup func(string) (string, bool)) {
	ids := map[string]bool{}
	owner := map[string]string{} // key hash -> tenant id
	channels := map[string]bool{}
	for _, ch := range c.Channels {
		channels[ch.Name] = true
	}
	for i := range c.Tenants {
		t := &c.Tenants[i]
		path := fmt.Sprintf("tenants[%d]", i)
		line := lineOf(root, "tenants", i)
		switch {
		case !tenantIDPattern.MatchString(t.ID):
			ps.add(line, path+".id", "want letters, digits, '_', '.' or '-' (at most 64), got %q", t.ID)
		case ids[t.ID]:
			ps.add(line, path+".id", "duplicate tenant id %q", t.ID)
		}
		ids[t.ID] = true
		addHash := func(h string, where string, l int) {
			if prev, dup := owner[h]; dup {
				ps.add(l, where, "this key is already a key of tenant %q", prev)
				return
			}
			owner[h] = t.ID
			t.Hashes = append(t.Hashes, h)
		}
		if t.KeysEnv != "" {
			v := secret(t.KeysEnv, lineOf(root, "tenants", i, "keys_env"), path+".keys_env", ps, lookup)
			for _, k := range strings.Split(v, ",") {
				if k = strings.TrimSpace(k); k != "" {
					addHash(HashKey(k), path+".keys_env", lineOf(root, "tenants", i, "keys_env"))
				}
			}
		}
		for j, h := range t.KeyHashes {
			h = strings.ToLower(strings.TrimSpace(h))
			if !sha256Hex.MatchString(h) {
				ps.add(lineOf(root, "tenants", i, "key_hashes", j), fmt.Sprintf("%s.key_hashes[%d]", path, j), "want a sha256 hex digest (64 hex digits)")
				continue
			}
			addHash(h, fmt.Sprintf("%s.key_hashes[%d]", path, j), lineOf(root, "tenants", i, "key_hashes", j))
		}
		for j := range t.Keys {
			k := &t.Keys[j]
			kpath := fmt.Sprintf("%s.keys[%d]", path, j)
			kline := lineOf(root, "tenants", i, "keys", j)
			switch {
			case k.KeyEnv != "" && k.Hash != "":
				ps.add(kline, kpath, "set key_env or hash, not both")
			case k.KeyEnv != "":
				if v := secret(k.KeyEnv, kline, kpath+".key_env", ps, lookup); v != "" {
					k.HashHex = HashKey(v)
				}
			case sha256Hex.MatchString(strings.ToLower(k.Hash)):
				k.HashHex = strings.ToLower(k.Hash)
			default:
				ps.add(kline, kpath, "want key_env, or hash as a sha256 hex digest")
			}
			if k.HashHex != "" {
				addHash(k.HashHex, kpath, kline)
			}
		}
		if len(t.Hashes) == 0 {
			ps.add(line, path, "tenant %q has no virtual key (keys_env, key_hashes or keys)", t.ID)
		}
		if t.Upstream != "" && c.Upstream(t.Upstream) == nil {
			ps.add(lineOf(root, "tenants", i, "upstream"), path+".upstream", "no upstream named %q", t.Upstream)
		}
		t.APIKey = secret(t.APIKeyEnv, lineOf(root, "tenants", i, "api_key_env"), path+".api_key_env", ps, lookup)
		for j, name := range t.Channels {
			if !channels[name] {
				ps.add(lineOf(root, "tenants", i, "channels", j), fmt.Sprintf("%s.channels[%d]", path, j), "no channel named %q", name)
			}
		}
	}
	if len(c.Tenants) > 0 {
		// A virtual key never goes upstream: every upstream a tenant can
		// reach needs a credential of hookgate's.
		for i, t := range c.Tenants {
			if t.APIKey != "" {
				continue
			}
			for _, u := range c.Upstreams {
				if (t.Upstream == "" || t.Upstream == u.Name) && u.APIKey == "" {
					ps.add(lineOf(root, "tenants", i), fmt.Sprintf("tenants[%d]", i), "upstream %q has no api_key_env and the tenant no api_key_env: with tenants, hookgate must hold the upstream credential", u.Name)
				}
			}
		}
	}
}
