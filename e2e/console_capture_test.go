//go:build console

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/proxy"
)

// capturedSession is the session the browser test opens on the hookgate
// that keeps its events (audit.capture_events): a prompt, two tool calls
// (one allowed, one blocked by no-sudo) and the allowed call's result.
const capturedSession = "s-captured-loop"

// capturedConfig runs the three hooks whose events the timeline shows,
// with the audit key that seals and opens them.
func capturedConfig(mock, db string) string {
	return `listen: 127.0.0.1:0
upstreams:
  - name: mock
    base_url: ` + mock + `
admin:
  listen: 127.0.0.1:0
  insecure_cookies: true
  tokens:
    - {name: alice, token_env: E2E_ALICE_TOKEN}
store:
  path: ` + db + `
audit:
  key_env: E2E_AUDIT_KEY
  capture_events: true
hooks:
  - id: read-prompt
    event: user_prompt_submit
    handler: {type: script, source: "function handle(e) { return {decision: 'allow'} }"}
  - id: no-sudo
    event: pre_tool_use
    matcher: "^exec$"
    handler:
      type: script
      source: "function handle(e) { return e.toolInput.command.indexOf('sudo') >= 0 ? {decision: 'block', reason: 'no sudo'} : {decision: 'allow'} }"
  - id: read-result
    event: post_tool_use
    handler: {type: script, source: "function handle(e) { return {decision: 'allow'} }"}
`
}

// capturedLoop starts the capturing hookgate and runs one agent loop
// through it: the prompt and two calls, then the allowed call's result.
// It returns once the console's timeline shows the loop from the
// captured events (the audit writer records off the request path).
func capturedLoop(t *testing.T, db string) string {
	t.Helper()
	t.Setenv("E2E_AUDIT_KEY", "4242424242424242424242424242424242424242424242424242424242424242")
	mock := mockupstream.Start(t)
	a := startApp(t, capturedConfig(mock.URL(), db))
	turn := func(messages string, reply mockupstream.StreamSpec) {
		mock.Enqueue(mockupstream.JSON(200, reply.Completion()))
		status, _, body := rawPost(t, a.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":`+messages+`}`),
			map[string]string{"X-Session-Id": capturedSession})
		if status != 200 {
			t.Fatalf("the captured loop's turn: %d %s", status, body)
		}
	}
	turn(`[{"role":"user","content":"list the files"}]`, mockupstream.StreamSpec{Texts: []string{"Listing."}, Calls: []mockupstream.ToolCall{
		{ID: "call_ls", Name: "exec", Arguments: `{"command":"ls -l"}`},
		{ID: "call_sudo", Name: "exec", Arguments: `{"command":"sudo rm -rf /tmp/x"}`},
	}})
	turn(`[{"role":"user","content":"list the files"},
		{"role":"assistant","content":"Listing.","tool_calls":[{"id":"call_ls","type":"function","function":{"name":"exec","arguments":"{\"command\":\"ls -l\"}"}}]},
		{"role":"tool","tool_call_id":"call_ls","content":"total 0 (listing-result)"}]`,
		mockupstream.StreamSpec{Texts: []string{"There are no files."}})

	// Wait for the four events through the console's own API.
	req, _ := http.NewRequest(http.MethodPost, a.AdminURL()+"/console/login", strings.NewReader(`{"token":"tok-alice-secret"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie string
	for _, c := range resp.Cookies() {
		if c.Name == proxy.ConsoleCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, a.AdminURL()+"/console/api/timeline?session="+capturedSession, nil)
		req.Header.Set("Cookie", cookie)
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var tl struct {
			Source string
			Events []map[string]any
		}
		_ = json.Unmarshal(b, &tl)
		if tl.Source == "captured_events" && len(tl.Events) >= 4 {
			return a.AdminURL()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the captured loop is not in the timeline after 30 s: %s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
