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

// authenticate finds the principal of the virtual key a request carries:
// Authorization: Bearer, else the first credential header of any API
// (clientCredentialHeaders: x-api-key, api-key, x-goog-api-key, every
// registered format's own), in any spelling of its name.
func (tk *tenantKeys) authenticate(h *fasthttp.RequestHeader) (principal, bool) {
	key := h.Peek("Authorization")
	if len(key) > 7 && bytes.EqualFold(key[:7], []byte("Bearer ")) {
		key = bytes.TrimSpace(key[7:])
	} else {
		key = nil
		for _, name := range clientCredentialHeaders[1:] {
			if k := h.Peek(name); len(k) > 0 {
				key = k
				break
			}
		}
	}
	if len(key) == 0 {
		return principal{}, false
	}
	p, ok := tk.byHash[KeyDigest(string(key))]
	return p, ok
}

// stripCredentials removes the agent's key from the request, in every
// header that carries one.
func stripCredentials(h *fasthttp.RequestHeader) {
	delHeaderFold(h, clientCredentialHeaders...)
}
