package app

import (
	"testing"

	"github.com/hookgate/hookgate/config"
)

// A prompt hook asks an upstream's chat completions where its provider
// serves them: /v1 on OpenAI and OpenAI-compatible APIs, /openai/v1 on an
// Azure OpenAI resource endpoint, with the upstream's key.
func TestJudgeEndpointFollowsTheProvidersChatRoute(t *testing.T) {
	for _, c := range []struct{ provider, baseURL, want string }{
		{"openai", "https://api.openai.com", "https://api.openai.com/v1"},
		{"openai", "https://gw.example.test/", "https://gw.example.test/v1"},
		{"azure", "https://res.openai.azure.com", "https://res.openai.azure.com/openai/v1"},
		{"anthropic", "https://api.anthropic.com", "https://api.anthropic.com/v1"},
	} {
		ep := judgeEndpoint(config.Upstream{Provider: c.provider, BaseURL: c.baseURL, APIKey: "k"})
		if ep.BaseURL != c.want || ep.APIKey != "k" {
			t.Errorf("%s %s: judge %+v, want %s", c.provider, c.baseURL, ep, c.want)
		}
	}
}
