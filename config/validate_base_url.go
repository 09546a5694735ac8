package config

import (
	"strings"

	"github.com/hookgate/hookgate/providers"
)

// routeRootIn is the route root (providers.ProviderRouteRoots, and /v1,
// where every provider's versioned API starts) that a base_url's path
// already holds, or "": a request to /v1/... or /openai/... goes to
// base_url + its path, so a base_url holding the root doubles it.
func routeRootIn(basePath, provider string) string {
	for _, r := range append(providers.ProviderRouteRoots(provider), "/v1") {
		if strings.HasSuffix(basePath, r) || strings.Contains(basePath, r+"/") {
			return r
		}
	}
	return ""
}
