package providers

import (
	"slices"
	"strings"
	"testing"
)

// Azure OpenAI's routes are read as OpenAI's chat completions and
// Responses formats: a deployment route only with exactly one api-version,
// a v1 route with at most one; anything else is no Azure route (refused
// once hooks exist, never read one way here and another upstream).
func TestAzureRoutesAreFoundByPathAndQuery(t *testing.T) {
	tab := Registered()
	for _, c := range []struct {
		path, query string
		want        *Format
	}{
		{"/openai/deployments/gpt-4o/chat/completions", "api-version=2024-10-21", AzureChatFormat},
		{"/openai/deployments/gpt-4o_prod.eu/chat/completions", "api-version=2025-04-01-preview&x=1", AzureChatFormat},
		{"/openai/deployments/gpt-5-mini/responses", "api-version=2025-04-01-preview", AzureResponsesFormat},
		{"/openai/responses", "api-version=2025-04-01-preview", AzureResponsesFormat},
		{"/openai/responses", "", nil},
		{"/openai/v1/chat/completions", "", AzureChatFormat},
		{"/openai/v1/chat/completions", "api-version=preview", AzureChatFormat},
		{"/openai/v1/responses", "", AzureResponsesFormat},
		{"/openai/v1/responses", "api-version=v1", AzureResponsesFormat},
		{"/openai/deployments/d/chat/completions", "", nil},                                     // api-version is required
		{"/openai/deployments/d/chat/completions", "api-version=", nil},                         // and not empty
		{"/openai/deployments/d/chat/completions", "api-version=a&api-version=b", nil},          // two readings
		{"/openai/deployments/d/chat/completions", "API-Version=2024-10-21", nil},               // another case
		{"/openai/deployments/d/chat/completions", "api-version=2024-10-21;api-version=x", nil}, // ';' splits to some
		{"/openai/v1/chat/completions", "api-version=a&api-version=b", nil},
		{"/openai/deployments/.d/chat/completions", "api-version=1", nil},
		{"/openai/deployments/d/x/chat/completions", "api-version=1", nil},
		{"/openai/deployments/d/completions", "api-version=1", nil},
		{"/openai/deployments/d/embeddings", "api-version=1", nil},
		{"/openai/v1/responses/resp_1", "", nil},
	} {
		if got := tab.Match(c.path, c.query); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.path, c.query, name(got), name(c.want))
		}
	}
	if tab.MatchLower("/openai/deployments/gpt-4o/chat/completions", "api-version=1") != AzureChatFormat {
		t.Error("MatchLower misses a deployment route")
	}
	if tab.Match("/OpenAI/deployments/gpt-4o/chat/completions", "api-version=1") != nil {
		t.Error("Match reads a route spelled in another case")
	}
	if !tab.ReadsQuery() {
		t.Error("the registry has query routes and says it reads no query")
	}
}

func name(f *Format) string {
	if f == nil {
		return "nil"
	}
	return f.Name
}

// Azure's formats are read as OpenAI's, carry the key in api-key
// without a prefix, answer in OpenAI's error shape, answer refusals under
// /openai in it, and label metrics without the deployment.
func TestAzureFormatsDescribeAzureOpenAI(t *testing.T) {
	if AzureChatFormat.ReadAs != ChatFormat.Name || AzureResponsesFormat.ReadAs != ResponsesFormat.Name || AzureChatFormat.Codec != nil {
		t.Errorf("read as %q %q, want OpenAI's formats", AzureChatFormat.ReadAs, AzureResponsesFormat.ReadAs)
	}
	if ChatFormat.ReadAs != ChatFormat.Name || MessagesFormat.ReadAs != MessagesFormat.Name {
		t.Errorf("a format without ReadAs is not read as itself: %q %q", ChatFormat.ReadAs, MessagesFormat.ReadAs)
	}
	if !KnownProvider("azure") || ProviderFormat("azure").Auth.Header != "api-key" || ProviderFormat("azure").Auth.Value("k") != "k" {
		t.Errorf("azure auth %+v", ProviderFormat("azure").Auth)
	}
	for _, f := range []*Format{AzureChatFormat, AzureResponsesFormat} {
		if f.Provider != "azure" {
			t.Errorf("%s: provider %q", f.Name, f.Provider)
		}
		if strings.Contains(f.MetricLabel, "{") || !strings.HasPrefix(f.MetricLabel, "/openai/") {
			t.Errorf("%s: metric label %q", f.Name, f.MetricLabel)
		}
		if got, want := string(f.Error(400, "invalid_request_error", "c", "no")), string(ErrorBody("no", "invalid_request_error", "c")); got != want {
			t.Errorf("%s: error shape %s", f.Name, got)
		}
		for _, p := range []string{"/openai", "/openai/deployments/d/embeddings", "/openai/v1/responses/resp_1"} {
			if !f.InRefusalScope(p) {
				t.Errorf("%s: %s is outside the refusal scope", f.Name, p)
			}
		}
		if f.InRefusalScope("/openaix") || f.InRefusalScope("/v1/chat/completions") {
			t.Errorf("%s: refusal scope reaches beyond /openai", f.Name)
		}
	}
	if got := ProviderRouteRoots("azure"); !slices.Equal(got, []string{"/openai"}) {
		t.Errorf("azure route roots %v", got)
	}
	if got := ProviderRouteRoots("openai"); !slices.Equal(got, []string{"/v1"}) {
		t.Errorf("openai route roots %v", got)
	}
	for provider, want := range map[string]string{"openai": "/v1", "azure": "/openai/v1"} {
		if got, ok := ChatCompletionsBase(provider); !ok || got != want {
			t.Errorf("ChatCompletionsBase(%s) = %q, %v, want %q", provider, got, ok, want)
		}
	}
	if _, ok := ChatCompletionsBase("anthropic"); ok {
		t.Error("Anthropic's formats read no chat completions, ChatCompletionsBase says they do")
	}
}
