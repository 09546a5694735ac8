package config

import (
	"errors"
	"strings"
	"testing"
)

// An Azure OpenAI upstream is the resource endpoint: requests to
// /openai/deployments/... and /openai/v1/... go to base_url + their path,
// so a base_url that already holds /openai (or /v1) would double it and is
// refused with the fix; the bare endpoint is taken, its key from the
// environment.
func TestAzureUpstreamBaseURLIsTheResourceEndpoint(t *testing.T) {
	doc := "upstreams:\n  - name: az\n    provider: azure\n    base_url: https://res.openai.azure.com\n    api_key_env: AZ_KEY\n"
	cfg, err := Parse([]byte(doc), "c.yaml", env(map[string]string{"AZ_KEY": "az-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	if u := cfg.Upstreams[0]; u.Provider != "azure" || u.APIKey != "az-secret" {
		t.Errorf("upstream %+v", u)
	}
	for _, c := range []struct{ baseURL, want string }{
		{"https://res.openai.azure.com/openai", "leave /openai out: a request to /openai/... goes to base_url + /openai/..."},
		{"https://res.openai.azure.com/openai/v1", "leave /openai out"},
		{"https://res.openai.azure.com/openai/deployments/gpt-4o", "leave /openai out"},
		{"https://gw.example.test/v1", "leave /v1 out"},
	} {
		doc := "upstreams:\n  - name: az\n    provider: azure\n    base_url: " + c.baseURL + "\n"
		_, err := Parse([]byte(doc), "c.yaml", env(nil))
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "c.yaml:4: upstreams[0].base_url: "+c.want) {
			t.Errorf("base_url %s: want %q, got %v", c.baseURL, c.want, err)
		}
	}
	// /openai is Azure's root only: an OpenAI-compatible gateway may
	// keep the name in its own base path.
	doc = "upstreams:\n  - name: gw\n    provider: openai\n    base_url: https://gw.example.test/openai\n"
	if _, err := Parse([]byte(doc), "c.yaml", env(nil)); err != nil {
		t.Errorf("an openai upstream under /openai: %v", err)
	}
}
