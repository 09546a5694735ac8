package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	openaigo "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// Azure OpenAI end to end: an upstream with provider azure whose base_url
// is the resource endpoint (the loopback mock, replaying the recordings in
// fixtures/azure), hookgate in front of it, and openai-go with its Azure
// options (azure.WithEndpoint, azure.WithAPIKey) as the agent.

const (
	azureVersion    = "2024-10-21"
	azureDeployment = "o4-mini-prod"
	azureClientKey  = "az-client-canary"
	azureUpstream   = "az-upstream-secret"

	azureChatStream  = "azure/chat-o4mini-tool-prompt-filter-and-usage.sse"
	azureChatText    = "azure/chat-gpt35-text-content-filter-2024-02-01.sse"
	azureChatPlain   = "azure/chat-o4mini-tool-call-content-filter.json"
	azureRespsStream = "azure/responses-gpt5mini-function-call.sse"
)

// startAzureStack starts the mock and hookgate with one provider azure
// upstream, with an api_key when withKey, and extra YAML.
func startAzureStack(t *testing.T, withKey bool, extra string) *stack {
	t.Helper()
	mock := mockupstream.Start(t)
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: az\n    provider: azure\n    base_url: " + mock.URL() + "\n"
	if withKey {
		t.Setenv("HG_E2E_AZURE_KEY", azureUpstream)
		doc += "    api_key_env: HG_E2E_AZURE_KEY\n"
	}
	return &stack{mock: mock, app: startApp(t, doc+extra)}
}

// azureClient is openai-go configured for Azure OpenAI at endpoint: it
// sends chat completions to /openai/deployments/{model}/chat/completions
// and Responses to /openai/responses, with ?api-version and api-key.
func azureClient(endpoint string) openaigo.Client {
	return openaigo.NewClient(
		azure.WithEndpoint(endpoint, azureVersion),
		azure.WithAPIKey(azureClientKey),
		azure.WithUnsafeAllowHTTP(), // loopback only
		option.WithMaxRetries(0),
		option.WithRequestTimeout(30*time.Second),
	)
}

// azureV1Client is openai-go on Azure OpenAI's v1 routes, as Azure
// documents it: the plain client with base URL /openai/v1/ and the key as
// a bearer token.
func azureV1Client(endpoint string) openaigo.Client {
	return openaigo.NewClient(
		option.WithBaseURL(endpoint+"/openai/v1/"),
		option.WithAPIKey(azureClientKey),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(30*time.Second),
	)
}

func azureChatParams() openaigo.ChatCompletionNewParams {
	return openaigo.ChatCompletionNewParams{
		Model:    azureDeployment,
		Messages: []openaigo.ChatCompletionMessageParamUnion{openaigo.UserMessage("What is the weather in Florence?")},
	}
}

// azureStream reads a streamed chat completion with client, putting it
// together with openai-go's accumulator.
func azureStream(client openaigo.Client) assembled {
	stream := client.Chat.Completions.NewStreaming(context.Background(), azureChatParams())
	defer stream.Close()
	acc := openaigo.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	var out assembled
	if err := stream.Err(); err != nil {
		out.Err = err.Error()
	}
	for _, ch := range acc.Choices {
		out.Content += ch.Message.Content
		if ch.FinishReason != "" {
			out.Finish = append(out.Finish, ch.FinishReason)
		}
		for i, tc := range ch.Message.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, assembledCall{Index: fmt.Sprint(i), ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	}
	return out
}

// azurePlain reads a non-streamed chat completion with client.
func azurePlain(client openaigo.Client) assembled {
	resp, err := client.Chat.Completions.New(context.Background(), azureChatParams())
	if err != nil {
		return assembled{Err: err.Error()}
	}
	var out assembled
	for _, ch := range resp.Choices {
		out.Content += ch.Message.Content
		out.Finish = append(out.Finish, ch.FinishReason)
		for i, tc := range ch.Message.ToolCalls {
			out.ToolCalls = append(out.ToolCalls, assembledCall{Index: fmt.Sprint(i), ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	}
	return out
}

// azureResponsesStream reads a streamed response with client: the calls
// of the final response and of output_item.done, which must agree.
func azureResponsesStream(client openaigo.Client) respOutcome {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream := client.Responses.NewStreaming(ctx, respParams(azureDeployment))
	defer stream.Close()
	var out respOutcome
	for stream.Next() {
		ev := stream.Current()
		out.Seqs = append(out.Seqs, ev.SequenceNumber)
		switch ev.Type {
		case "response.output_text.delta":
			out.Deltas += ev.Delta
		case "response.output_item.done":
			if ev.Item.Type == "function_call" {
				fc := ev.Item.AsFunctionCall()
				out.ItemDone = append(out.ItemDone, respCall{fc.CallID, fc.Name, fc.Arguments})
			}
		case "response.completed", "response.incomplete", "response.failed":
			r := ev.Response
			out.Status, out.Text, out.Calls = string(r.Status), r.OutputText(), callsOfResponse(r)
		}
	}
	if err := stream.Err(); err != nil {
		out.Err = err.Error()
	}
	return out
}

// lastRequest is the newest request the mock received.
func lastRequest(t *testing.T, m *mockupstream.Server) *mockupstream.Request {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) == 0 {
		t.Fatal("the upstream received no request")
	}
	return reqs[len(reqs)-1]
}

// Without hooks every Azure recording reaches the client byte for byte on
// each Azure route, and openai-go with its Azure options assembles through
// hookgate exactly what it assembles from the upstream directly. The
// deployment, the api-version and the client's own api-key reach the
// upstream as the client sent them (no upstream key is configured).
func TestAzureRecordingsPassThroughUnchanged(t *testing.T) {
	s := startAzureStack(t, false, "")
	for _, c := range []struct {
		fixture, path string
		stream        bool
	}{
		{azureChatStream, "/openai/deployments/" + azureDeployment + "/chat/completions?api-version=" + azureVersion, true},
		{azureChatText, "/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-02-01", true},
		{azureChatStream, "/openai/v1/chat/completions", true},
		{azureChatPlain, "/openai/deployments/" + azureDeployment + "/chat/completions?api-version=" + azureVersion, false},
		{azureRespsStream, "/openai/responses?api-version=2025-04-01-preview", true},
		{azureRespsStream, "/openai/v1/responses?api-version=preview", true},
		{azureRespsStream, "/openai/deployments/gpt-5-mini/responses?api-version=2025-04-01-preview", true},
	} {
		t.Run(c.fixture+" "+c.path, func(t *testing.T) {
			chunks := chunkings
			if !c.stream {
				chunks = chunkings[:1]
			}
			for _, ch := range chunks {
				r := mockupstream.MustFixture(t, c.fixture, ch)
				s.mock.Handle(mockupstream.Always(r))
				status, _, got := rawPost(t, s.app.URL(), c.path, []byte(`{"model":"m","stream":true,"messages":[],"input":"hi"}`), map[string]string{"api-key": azureClientKey})
				if status != 200 || !bytes.Equal(got, r.Body) {
					t.Fatalf("%s: status %d, relayed bytes differ from the upstream's:\n%s", ch.Mode, status, firstDiff(got, r.Body))
				}
				up := lastRequest(t, s.mock)
				if up.URI != c.path || up.Header.Get("api-key") != azureClientKey {
					t.Fatalf("the upstream got %s with api-key %q, want %s with the client's key", up.URI, up.Header.Get("api-key"), c.path)
				}
			}
		})
	}

	s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatStream, chunkings[0])))
	direct, proxied := azureStream(azureClient(s.mock.URL())), azureStream(azureClient(s.app.URL()))
	if len(direct.ToolCalls) != 1 || direct.ToolCalls[0].Name != "weather" {
		t.Fatalf("openai-go read no weather call from the recording directly: %s", direct)
	}
	sameAs(t, "openai-go azure, stream", direct, proxied, s.mock.URL(), s.app.URL())
	if up := lastRequest(t, s.mock); up.URI != "/openai/deployments/"+azureDeployment+"/chat/completions?api-version="+azureVersion {
		t.Errorf("the SDK's request reached the upstream as %s", up.URI)
	}
	sameAs(t, "openai-go azure v1, stream", direct, azureStream(azureV1Client(s.app.URL())), s.mock.URL(), s.app.URL())

	s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatPlain, chunkings[0])))
	sameAs(t, "openai-go azure, plain", azurePlain(azureClient(s.mock.URL())), azurePlain(azureClient(s.app.URL())), s.mock.URL(), s.app.URL())

	s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureRespsStream, chunkings[0])))
	rDirect, rProxied := azureResponsesStream(azureClient(s.mock.URL())), azureResponsesStream(azureClient(s.app.URL()))
	if len(rDirect.Calls) != 1 || rDirect.Err != "" {
		t.Fatalf("openai-go read no call from the Responses recording directly: %s", rDirect)
	}
	if !reflect.DeepEqual(rDirect, rProxied) {
		t.Errorf("Responses through hookgate:\ndirect:  %s\nproxied: %s", rDirect, rProxied)
	}
	if up := lastRequest(t, s.mock); up.URI != "/openai/responses?api-version="+azureVersion {
		t.Errorf("the SDK's Responses request reached the upstream as %s", up.URI)
	}
}

// The policy of the Azure block and rewrite tests names the event's
// provider in its answer: the hooks see provider azure.
const (
	azureBlockWeather = `hooks:
  - id: no-weather
    event: pre_tool_use
    matcher: "^weather$"
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "closed on " + e.provider + " for " + e.toolInput.location }; }
`
	azureRewriteWeather = `hooks:
  - id: to-paris
    event: pre_tool_use
    matcher: "^weather$"
    allow_mutation: [toolInput.location]
    handler:
      type: script
      source: |
        function handle(e) {
          if (e.provider !== "azure") { return { decision: "block", reason: "provider " + e.provider }; }
          return { decision: "rewrite", updatedInput: { location: "Paris, France" } };
        }
`
)

// A pre_tool_use block of the recording's weather call: openai-go, with
// its Azure options, accumulating the stream (or reading the body), sees
// no call and the block note instead, on the chat completions stream, the
// plain completion and the Responses stream. The hook saw provider azure.
func TestAzureBlockedCallReachesNoClient(t *testing.T) {
	s := startAzureStack(t, true, azureBlockWeather)
	note := "[hookgate] tool call weather blocked by no-weather: closed on azure for Florence, Italy"
	for _, c := range chunkings {
		s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatStream, c)))
		for name, client := range map[string]openaigo.Client{"deployment": azureClient(s.app.URL()), "v1": azureV1Client(s.app.URL())} {
			got := azureStream(client)
			if got.Err != "" || len(got.ToolCalls) != 0 || !strings.Contains(got.Content, note) {
				t.Errorf("%s %s stream: want no call and the note %q: %s", c.Mode, name, note, got)
			}
		}
	}
	s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatPlain, chunkings[0])))
	if got := azurePlain(azureClient(s.app.URL())); got.Err != "" || len(got.ToolCalls) != 0 || !strings.Contains(got.Content, note) {
		t.Errorf("plain: want no call and the note: %s", got)
	}
	for _, c := range chunkings {
		s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureRespsStream, c)))
		got := azureResponsesStream(azureClient(s.app.URL()))
		if got.Err != "" || len(got.Calls) != 0 || len(got.ItemDone) != 0 || got.Status != "completed" || !strings.Contains(got.Text, note) {
			t.Errorf("%s Responses stream: want no call, a completed response and the note: %s", c.Mode, got)
		}
	}
}

// A rewrite of the recording's call reaches openai-go as the rewritten
// arguments, in the stream, the plain body and the Responses stream.
func TestAzureRewrittenCallReachesTheClient(t *testing.T) {
	s := startAzureStack(t, true, azureRewriteWeather)
	want := map[string]any{"location": "Paris, France"}
	check := func(what string, calls []assembledCall, err string) {
		t.Helper()
		if err != "" || len(calls) != 1 || calls[0].Name != "weather" || !reflect.DeepEqual(argsOf(t, calls[0].Arguments), want) {
			t.Errorf("%s: want the rewritten weather call, got %+v (err %q)", what, calls, err)
		}
	}
	for _, c := range chunkings {
		s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatStream, c)))
		got := azureStream(azureClient(s.app.URL()))
		check(fmt.Sprint(c.Mode)+" stream", got.ToolCalls, got.Err)
	}
	s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatPlain, chunkings[0])))
	got := azurePlain(azureClient(s.app.URL()))
	check("plain", got.ToolCalls, got.Err)
	for _, c := range chunkings {
		s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureRespsStream, c)))
		r := azureResponsesStream(azureClient(s.app.URL()))
		if r.Err != "" || len(r.Calls) != 1 || !reflect.DeepEqual(r.Calls, r.ItemDone) || !reflect.DeepEqual(argsOf(t, r.Calls[0].Arguments), want) {
			t.Errorf("%s Responses stream: want the rewritten call in the final response and its item: %s", c.Mode, r)
		}
	}
}

// With an api_key on the azure upstream, the upstream sees that key in
// api-key and never the client's credential, in api-key or Authorization
// (an Entra token, or the v1 routes' bearer key), in any spelling; the
// deployment path and api-version still arrive as sent.
func TestAzureUpstreamKeyReplacesTheClientsCredential(t *testing.T) {
	for _, hooks := range []string{"", azureRewriteWeather} {
		s := startAzureStack(t, true, hooks)
		s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatStream, chunkings[0])))
		check := func(what, wantURI string) {
			t.Helper()
			up := lastRequest(t, s.mock)
			if up.URI != wantURI {
				t.Errorf("%s: the upstream got %s, want %s", what, up.URI, wantURI)
			}
			if got := up.Header.Values("Api-Key"); len(got) != 1 || got[0] != azureUpstream {
				t.Errorf("%s: the upstream got api-key %q, want only the configured key", what, got)
			}
			for k, vs := range up.Header {
				for _, v := range vs {
					if strings.Contains(v, azureClientKey) || strings.Contains(v, "entra-token") {
						t.Errorf("%s: the client's credential reached the upstream in %s: %q", what, k, v)
					}
				}
				if strings.EqualFold(k, "Authorization") {
					t.Errorf("%s: an Authorization header reached the upstream", what)
				}
			}
		}
		if got := azureStream(azureClient(s.app.URL())); got.Err != "" {
			t.Fatalf("sdk: %s", got)
		}
		check("openai-go azure", "/openai/deployments/"+azureDeployment+"/chat/completions?api-version="+azureVersion)
		if got := azureStream(azureV1Client(s.app.URL())); got.Err != "" {
			t.Fatalf("sdk v1: %s", got)
		}
		check("openai-go on /openai/v1 with a bearer key", "/openai/v1/chat/completions")
		path := "/openai/deployments/d1/chat/completions?api-version=2025-01-01-preview"
		status, _, body := rawPost(t, s.app.URL(), path, []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`),
			map[string]string{"API-KEY": azureClientKey, "authorization": "Bearer entra-token", "X-Api-Key": azureClientKey})
		if status != 200 {
			t.Fatalf("raw: %d %s", status, body)
		}
		check("a client with every credential header", path)
	}
}

// Errors hookgate answers on Azure routes come in OpenAI's shape, which
// openai-go with its Azure options parses as *openai.Error with
// hookgate's status and code, and nothing reaches the upstream: a
// background response that the hooks could not read later, and a
// deployment route hookgate does not read (embeddings) while hooks are
// configured.
func TestAzureErrorsAreOpenAIErrors(t *testing.T) {
	s := startAzureStack(t, true, azureBlockWeather)
	client := azureClient(s.app.URL())
	params := respParams(azureDeployment)
	params.Background = openaigo.Bool(true)
	_, err := client.Responses.New(context.Background(), params)
	var apiErr *openaigo.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Code != "background_unsupported" || apiErr.Message == "" {
		t.Errorf("background response: want a 400 *openai.Error with code background_unsupported, got %v", err)
	}
	_, err = client.Embeddings.New(context.Background(), openaigo.EmbeddingNewParams{
		Model: "text-embedding-3-small",
		Input: openaigo.EmbeddingNewParamsInputUnion{OfString: openaigo.String("hi")},
	})
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusForbidden || apiErr.Code != "route_not_guarded" || apiErr.Type != "invalid_request_error" {
		t.Errorf("embeddings: want a 403 *openai.Error with code route_not_guarded, got %v", err)
	}
	if n := len(s.mock.Requests()); n != 0 {
		t.Errorf("the upstream received %d requests", n)
	}
	// A deployment route without its api-version is no route hookgate
	// reads: refused in the same shape, never forwarded.
	status, _, body := rawPost(t, s.app.URL(), "/openai/deployments/d1/chat/completions", []byte(`{"messages":[]}`), map[string]string{"api-key": azureClientKey})
	if status != http.StatusForbidden || !strings.Contains(string(body), `"code":"route_not_guarded"`) || len(s.mock.Requests()) != 0 {
		t.Errorf("a deployment route without api-version: %d %s", status, body)
	}
}

// The route label of Azure's routes leaves the deployment out.
func TestAzureMetricLabelsHoldNoDeployment(t *testing.T) {
	s := startAzureStack(t, false, "")
	s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatPlain, chunkings[0])))
	if got := azurePlain(azureClient(s.app.URL())); got.Err != "" {
		t.Fatal(got)
	}
	resp, err := http.Get(s.app.AdminURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `route="/openai/chat/completions"`) || strings.Contains(b.String(), azureDeployment) {
		t.Errorf("metrics: want route=\"/openai/chat/completions\" and no deployment name:\n%s", grepLines(b.String(), "hookgate_requests_total"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// A prompt hook judging with an azure upstream asks its chat completions
// at the resource endpoint's /openai/v1 route, with the upstream's key, and
// its verdict blocks the recording's call.
func TestAzurePromptHookJudgesAtTheResourceEndpoint(t *testing.T) {
	s := startAzureStack(t, true, `hooks:
  - id: judge
    event: pre_tool_use
    matcher: "^weather$"
    handler: {type: prompt, upstream: az, model: judge-deployment, instruction: block anything risky}
`)
	stream := mockupstream.MustFixture(t, azureChatStream, chunkings[0])
	verdict := mockupstream.JSON(200, []byte(`{"id":"j","object":"chat.completion","created":1,"model":"judge","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{\"decision\":\"block\",\"reason\":\"judged risky\"}"}}]}`))
	s.mock.Handle(func(r *mockupstream.Request) mockupstream.Response {
		if r.Path == "/openai/v1/chat/completions" {
			return verdict
		}
		return stream
	})
	got := azureStream(azureClient(s.app.URL()))
	if got.Err != "" || len(got.ToolCalls) != 0 || !strings.Contains(got.Content, "blocked by judge: judged risky") {
		t.Fatalf("want the call blocked by the judge: %s", got)
	}
	var judged *mockupstream.Request
	for _, r := range s.mock.Requests() {
		if r.Path == "/openai/v1/chat/completions" {
			judged = r
		}
	}
	if judged == nil || !strings.Contains(string(judged.Body), `"model":"judge-deployment"`) || !strings.Contains(judged.Header.Get("Authorization")+judged.Header.Get("Api-Key"), azureUpstream) {
		t.Fatalf("the judge was not asked at /openai/v1/chat/completions with the upstream's key: %+v", judged)
	}
}

// With tenants, an Azure SDK's api-key is the virtual key: it picks the
// tenant (whose hooks judge the call), and only the upstream's key reaches
// the upstream; an unknown key is refused in OpenAI's shape.
func TestAzureVirtualKeyInAPIKey(t *testing.T) {
	dir := t.TempDir()
	tenantHooks := `- id: no-weather
  event: pre_tool_use
  matcher: "^weather$"
  handler:
    type: script
    source: |
      function handle(e) { return { decision: "block", reason: "acme gets no weather" }; }
`
	if err := os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(tenantHooks), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HG_E2E_AZURE_VKEYS", azureClientKey)
	s := startAzureStack(t, true, "tenants:\n  - id: acme\n    keys_env: HG_E2E_AZURE_VKEYS\n    hooks_file: "+filepath.Join(dir, "acme.yaml")+"\n")
	s.mock.Handle(mockupstream.Always(mockupstream.MustFixture(t, azureChatStream, chunkings[0])))
	got := azureStream(azureClient(s.app.URL()))
	if got.Err != "" || len(got.ToolCalls) != 0 || !strings.Contains(got.Content, "blocked by no-weather") {
		t.Fatalf("want the tenant's hook to block the call: %s", got)
	}
	up := lastRequest(t, s.mock)
	if up.Header.Get("Api-Key") != azureUpstream || up.Header.Get("Authorization") != "" {
		t.Errorf("the upstream got api-key %q, Authorization %q", up.Header.Get("Api-Key"), up.Header.Get("Authorization"))
	}
	before := len(s.mock.Requests())
	other := openaigo.NewClient(azure.WithEndpoint(s.app.URL(), azureVersion), azure.WithAPIKey("vk-unknown"), azure.WithUnsafeAllowHTTP(), option.WithMaxRetries(0))
	_, err := other.Chat.Completions.New(context.Background(), azureChatParams())
	var apiErr *openaigo.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized || apiErr.Code != "invalid_api_key" {
		t.Errorf("an unknown virtual key: want a 401 *openai.Error invalid_api_key, got %v", err)
	}
	if len(s.mock.Requests()) != before {
		t.Error("a request with an unknown virtual key reached the upstream")
	}
}
