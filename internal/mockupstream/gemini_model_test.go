package mockupstream

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"google.golang.org/genai"
)

// geminiClient is Google's own Go client on the scripted model.
func geminiClient(t *testing.T) *genai.Client {
	t.Helper()
	srv := Start(t)
	srv.Handle(agentScript().GeminiHandler())
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var geminiShellTool = []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
	{Name: "read_file"}, {Name: "run_shell_command"},
}}}

// Read by genai's stream reader, the script asks for the allowed command,
// then after one functionResponse for the destructive one, each call
// signed, then answers the final text with finishReason STOP.
func TestGeminiScriptStreamSteps(t *testing.T) {
	c := geminiClient(t)
	contents := []*genai.Content{genai.NewContentFromText("tidy up", genai.RoleUser)}
	cfg := &genai.GenerateContentConfig{Tools: geminiShellTool}
	for step, want := range []string{"touch ok", "rm -r precious", ""} {
		var calls []*genai.Part
		var text strings.Builder
		finish := genai.FinishReason("")
		for resp, err := range c.Models.GenerateContentStream(context.Background(), "gemini-test", contents, cfg) {
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			cand := resp.Candidates[0]
			if cand.FinishReason != "" {
				finish = cand.FinishReason
			}
			for _, p := range cand.Content.Parts {
				if p.FunctionCall != nil {
					calls = append(calls, p)
				}
				text.WriteString(p.Text)
			}
		}
		if finish != genai.FinishReasonStop {
			t.Fatalf("step %d: finish reason %q, want STOP", step, finish)
		}
		if want == "" {
			if len(calls) != 0 || text.String() != "All done." {
				t.Fatalf("step %d: want the final answer, got %q and %d calls", step, text.String(), len(calls))
			}
			continue
		}
		if len(calls) != 1 || calls[0].FunctionCall.Name != "run_shell_command" || calls[0].FunctionCall.Args["command"] != want {
			t.Fatalf("step %d: want run_shell_command %q, got %+v", step, want, calls)
		}
		if len(calls[0].ThoughtSignature) == 0 {
			t.Errorf("step %d: the call carries no thoughtSignature", step)
		}
		contents = append(contents,
			&genai.Content{Role: genai.RoleModel, Parts: calls},
			genai.NewContentFromFunctionResponse("run_shell_command", map[string]any{"output": "done"}, genai.RoleUser))
	}
}

// The plain generateContent answers the same turn in one response.
func TestGeminiScriptGenerateContent(t *testing.T) {
	c := geminiClient(t)
	resp, err := c.Models.GenerateContent(context.Background(), "gemini-test", genai.Text("tidy up"), &genai.GenerateContentConfig{Tools: geminiShellTool})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.FunctionCalls()
	if len(calls) != 1 || calls[0].Args["command"] != "touch ok" {
		t.Fatalf("want run_shell_command touch ok, got %+v", calls)
	}
}

// A request that asks for JSON of a schema gets an object that fills it:
// next_speaker is "user", numbers 1, strings text.
func TestGeminiScriptSchemaAnswer(t *testing.T) {
	c := geminiClient(t)
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"complexity_score": map[string]any{"type": "integer"},
		"next_speaker":     map[string]any{"type": "string", "enum": []string{"model", "user"}},
		"reasoning":        map[string]any{"type": "string"},
	}}
	resp, err := c.Models.GenerateContent(context.Background(), "gemini-test", genai.Text("who speaks next?"),
		&genai.GenerateContentConfig{ResponseMIMEType: "application/json", ResponseJsonSchema: schema})
	if err != nil {
		t.Fatal(err)
	}
	got := gjson.Parse(resp.Text())
	if got.Get("complexity_score").Int() != 1 || got.Get("next_speaker").String() != "user" || got.Get("reasoning").String() == "" {
		t.Fatalf("schema answer %s", resp.Text())
	}
}

// countTokens answers; other methods and bad bodies get Google's error
// shape; routes that are not Gemini's go to the other APIs' handler.
func TestGeminiScriptSideRoutes(t *testing.T) {
	c := geminiClient(t)
	n, err := c.Models.CountTokens(context.Background(), "gemini-test", genai.Text("count me"), nil)
	if err != nil || n.TotalTokens == 0 {
		t.Fatalf("countTokens: %v, %+v", err, n)
	}
	h := agentScript().GeminiHandler()
	for _, tc := range []struct {
		path, body string
		status     int
		status2    string
	}{
		{"/v1beta/models/m:embedContent", `{}`, http.StatusNotFound, "NOT_FOUND"},
		{"/v1beta/models/m:generateContent", `{`, http.StatusBadRequest, "INVALID_ARGUMENT"},
	} {
		r := h(&Request{Method: http.MethodPost, Path: tc.path, URI: tc.path, Body: []byte(tc.body)})
		if r.Status != tc.status || gjson.GetBytes(r.Body, "error.status").String() != tc.status2 || gjson.GetBytes(r.Body, "error.code").Int() != int64(tc.status) {
			t.Errorf("%s %s: %d %s", tc.path, tc.body, r.Status, r.Body)
		}
	}
	chat := h(&Request{Method: http.MethodPost, Path: "/v1/chat/completions", Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)})
	if chat.Status != http.StatusOK || gjson.GetBytes(chat.Body, "choices.0.message.content").String() != "OK." {
		t.Errorf("chat completions through the Gemini handler: %d %s", chat.Status, chat.Body)
	}
}

// Without alt=sse the stream is one JSON array of the responses, each
// the same as an SSE frame's.
func TestGeminiScriptJSONArrayStream(t *testing.T) {
	h := agentScript().GeminiHandler()
	body := `{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`
	r := h(&Request{Method: http.MethodPost, Path: "/v1/models/m:streamGenerateContent", URI: "/v1/models/m:streamGenerateContent", Body: []byte(body)})
	arr := gjson.ParseBytes(r.Body)
	if !r.Stream || !arr.IsArray() || len(arr.Array()) != 3 {
		t.Fatalf("want a streamed array of three responses, got %s", r.Body)
	}
	if got := arr.Get("1.candidates.0.content.parts.0.functionCall.args.command").String(); got != "touch ok" {
		t.Errorf("the call's command in the array: %q", got)
	}
	if got := arr.Get("2.candidates.0.finishReason").String(); got != "STOP" {
		t.Errorf("the last response's finish reason: %q", got)
	}
}
