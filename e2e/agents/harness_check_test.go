//go:build agents

package agents

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// The gate reaches the scripted model on each API the agents speak, a new
// session gets its context, and a destructive call is blocked: a harness
// that routed nowhere or let the call through would make every agent test
// of this package meaningless.
func TestHarnessGateJudgesEveryAPI(t *testing.T) {
	r := newRun(t)
	post(t, r.Gate+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"a new session"}]}`)
	if !r.ContextReached() {
		t.Errorf("the session context of a new session reached no request")
	}
	// One tool result each: the model's next step is the destructive call.
	secondStep := map[string]string{
		"/v1/chat/completions": `{"model":"m","tools":[{"type":"function","function":{"name":"bash","parameters":{}}}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`,
		"/v1/responses":        `{"model":"m","tools":[{"type":"function","name":"exec_command","parameters":{}}],"input":[{"role":"user","content":"go"},{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`,
		"/v1/messages":         `{"model":"m","max_tokens":100,"tools":[{"name":"Bash","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`,
	}
	for path, body := range secondStep {
		out := post(t, r.Gate+path, body)
		if strings.Contains(out, destructiveCommand) || !strings.Contains(out, blockNote) || !strings.Contains(out, disclaimer) {
			t.Errorf("%s: the destructive call was not replaced by the block note and the disclaimer: %s", path, out)
		}
	}
}

// post sends a JSON body with every API's credential headers and returns
// the 200 answer; any other status fails the test.
func post(t *testing.T, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer test")
	req.Header.Set("x-api-key", "test")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK || !gjson.ValidBytes(raw) {
		t.Fatalf("%s: status %d: %s", url, resp.StatusCode, raw)
	}
	return string(raw)
}
