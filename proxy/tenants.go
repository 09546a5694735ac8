package proxy

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// principal is who a request authenticated as with a virtual key.
type principal struct {
	tenant *Tenant
	agent  string
	bypass bool
}

// tenantKeys finds a tenant by the hash of a virtual key. Keys are held
// only as sha256 digests, so a lookup compares digests, never keys.
type tenantKeys struct {
	byHash map[string]principal
}

func newTenantKeys(tenants []Tenant) *tenantKeys {
	tk := &tenantKeys{byHash: map[string]principal{}}
	for i := range tenants {
		t := &tenants[i]
		for _, h := range t.Hashes {
			tk.byHash[h] = principal{tenant: t}
		}
		for _, k := range t.Keys {
			if k.HashHex != "" {
				tk.byHash[k.HashHex] = principal{tenant: t, agent: k.Agent, bypass: k.BypassHooks}
			}
		}
	}
	return tk
}

// credentialHeaders carry an agent's key; with tenants they never go
// upstream.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "Api-Key"}

// authenticate finds the principal of the virtual key a request carries
// (Authorization: Bearer, x-api-key, or api-key).
func (tk *tenantKeys) authenticate(h *fasthttp.RequestHeader) (principal, bool) {
	key := h.Peek("Authorization")
	if len(key) > 7 && bytes.EqualFold(key[:7], []byte("Bearer ")) {
		key = bytes.TrimSpace(key[7:])
	} else if k := h.Peek("X-Api-Key"); len(k) > 0 {
		key = k
	} else {
		key = h.Peek("Api-Key")
	}
	if len(key) == 0 {
		return principal{}, false
	}
	p, ok := tk.byHash[KeyDigest(string(key))]
	return p, ok
}

// stripCredentials removes the agent's key from the request.
func stripCredentials(h *fasthttp.RequestHeader) {
	for _, name := range credentialHeaders {
		h.Del(name)
	}
}
