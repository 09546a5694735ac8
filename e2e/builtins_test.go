package e2e

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/internal/testenv"
	"github.com/hookgate/hookgate/store"
)

// oneCall is a plain answer that calls tool with args.
func oneCall(tool, args string) mockupstream.Response {
	return mockupstream.JSON(200, mockupstream.StreamSpec{Calls: []mockupstream.ToolCall{{ID: "call_1", Name: tool, Arguments: args}}}.Completion())
}

// callsThrough sends one plain request and returns the tool calls and text
// the agent got.
func callsThrough(t *testing.T, s *stack, header map[string]string) (int64, string) {
	t.Helper()
	_, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`), header)
	return gjson.GetBytes(body, "choices.0.message.tool_calls.#").Int(), gjson.GetBytes(body, "choices.0.message.content").String()
}

func adminJSON(t *testing.T, url, token, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestReadOnlyGuardFollowsTheRuntimeSwitch(t *testing.T) {
	t.Setenv("E2E_ADMIN", "tok-admin")
	t.Setenv("E2E_UPSTREAM_KEY", "sk-upstream")
	t.Setenv("E2E_ACME", "vk-acme")
	t.Setenv("E2E_FROZEN", "vk-frozen")
	mock := mockupstream.Start(t)
	a := startApp(t, `listen: 127.0.0.1:0
admin: {listen: "127.0.0.1:0", token_env: E2E_ADMIN}
upstreams: [{name: mock, base_url: "`+mock.URL()+`", api_key_env: E2E_UPSTREAM_KEY}]
tenants:
  - {id: acme, keys_env: E2E_ACME}
  - {id: frozen, keys_env: E2E_FROZEN, read_only: true}
hooks:
  - id: readonly
    event: pre_tool_use
    handler: {type: builtin, name: readonly_guard, with: {tools: [deploy]}}
`)
	s := &stack{mock: mock, app: a}
	mock.Handle(mockupstream.Always(oneCall("deploy", `{"env":"prod"}`)))
	acme, frozen := bearer("vk-acme"), bearer("vk-frozen")
	if n, _ := callsThrough(t, s, acme); n != 1 {
		t.Fatal("acme's deploy was blocked while not read-only")
	}
	if n, text := callsThrough(t, s, frozen); n != 0 || !strings.Contains(text, "blocked by readonly") {
		t.Fatalf("a tenant configured read-only could deploy: %d %q", n, text)
	}
	if status := adminJSON(t, a.AdminURL()+"/admin/tenants/acme/readonly", "tok-admin", `{"read_only":true}`); status != 200 {
		t.Fatalf("switch: %d", status)
	}
	if n, _ := callsThrough(t, s, acme); n != 0 {
		t.Fatal("the run-time switch did not make acme read-only")
	}
	if status := adminJSON(t, a.AdminURL()+"/admin/tenants/frozen/readonly", "tok-admin", `{"read_only":false}`); status != 200 {
		t.Fatal("switch frozen off")
	}
	if n, _ := callsThrough(t, s, frozen); n != 1 {
		t.Fatal("the run-time switch did not win over the configured default")
	}
	adminJSON(t, a.AdminURL()+"/admin/tenants/acme/readonly", "tok-admin", `{"read_only":null}`)
	if n, _ := callsThrough(t, s, acme); n != 1 {
		t.Fatal("clearing the switch did not restore the default")
	}
	if status := adminJSON(t, a.AdminURL()+"/admin/tenants/acme/readonly", "tok-wrong", `{"read_only":true}`); status != 401 {
		t.Fatalf("wrong token: %d", status)
	}
	if status := adminJSON(t, a.AdminURL()+"/admin/tenants/nobody/readonly", "tok-admin", `{"read_only":true}`); status != 404 {
		t.Fatalf("unknown tenant: %d", status)
	}
}

func TestSecretGuardRateLimitAndTruncation(t *testing.T) {
	s := startStack(t, `hooks:
  - id: no-secrets
    event: pre_tool_use
    handler: {type: builtin, name: secret_guard}
  - id: budget
    event: pre_tool_use
    matcher: "^search$"
    handler: {type: builtin, name: rate_limit, with: {limit: 2, window: 1m}}
  - id: truncate
    event: post_tool_use
    allow_mutation: [toolResult]
    handler: {type: builtin, name: result_truncate, with: {max_chars: 200}}
`)
	key := "AKIA" + "ABCDEFGHIJKLMNOP"
	s.mock.Enqueue(oneCall("exec", `{"command":"aws s3 ls --access-key `+key+`"}`))
	n, text := callsThrough(t, s, nil)
	if n != 0 || !strings.Contains(text, "blocked by no-secrets") || strings.Contains(text, key) {
		t.Fatalf("secret_guard: %d calls, note %q", n, text)
	}
	for i := 1; i <= 3; i++ {
		s.mock.Enqueue(oneCall("search", `{"q":"x"}`))
		n, text := callsThrough(t, s, map[string]string{"X-Session-Id": "rl"})
		if want := int64(0); i == 3 && (n != want || !strings.Contains(text, "rate limit")) {
			t.Fatalf("call 3 passed the limit of 2: %q", text)
		}
		if i < 3 && n != 1 {
			t.Fatalf("call %d blocked under the limit: %q", i, text)
		}
	}
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 1}.Completion())))
	long := strings.Repeat("0123456789", 100)
	rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"cat"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_big","type":"function","function":{"name":"exec","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_big","content":"`+long+`"}]}`), nil)
	reqs := s.mock.Requests()
	got := gjson.GetBytes(reqs[len(reqs)-1].Body, "messages.2.content").String()
	if len([]rune(got)) != 200 || !strings.Contains(got, "characters removed") {
		t.Fatalf("result_truncate: %d runes: %q", len([]rune(got)), got)
	}
}

func TestAuditLogRecordsEveryToolCallAndNotifyTellsTheChannel(t *testing.T) {
	desk := &cardDesk{}
	deskURL := desk.serve(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "hookgate.db")
	mock := mockupstream.Start(t)
	a := startApp(t, `listen: 127.0.0.1:0
admin: {listen: "127.0.0.1:0"}
upstreams: [{name: mock, base_url: "`+mock.URL()+`"}]
store: {path: `+db+`}
channels:
  - {name: ops, type: webhook, url: "`+deskURL+`"}
hooks:
  - id: tool-log
    event: post_tool_use
    handler: {type: builtin, name: audit_log}
  - id: orders
    event: post_tool_use
    matcher: "^place_order$"
    handler: {type: builtin, name: notify, with: {channel: ops, text: "order placed in {{.sessionId}}: {{.toolResult}}"}}
`)
	hdr := map[string]string{"X-Session-Id": "s-orders"}
	mock.Enqueue(oneCall("place_order", `{"sku":"A1"}`))
	rawPost(t, a.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"buy"}]}`), hdr)
	mock.Handle(mockupstream.Always(mockupstream.JSON(200, mockupstream.StreamSpec{TextDeltas: 1}.Completion())))
	history := `{"role":"user","content":"buy"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"place_order","arguments":"{\"sku\":\"A1\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"order #42"}`
	for i := 0; i < 3; i++ { // the history is resent every turn
		rawPost(t, a.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[`+history+strings.Repeat(`,{"role":"assistant","content":"ok"},{"role":"user","content":"and?"}`, i)+`]}`), hdr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for desk.count() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	desk.mu.Lock()
	if len(desk.cards) != 1 || desk.cards[0]["text"] != "order placed in s-orders: order #42" {
		t.Fatalf("notify: %v", desk.cards)
	}
	desk.mu.Unlock()
	a.Close()
	st, err := store.Open(context.Background(), store.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.ListToolCalls(context.Background(), "s-orders")
	if err != nil || len(rows) != 1 {
		t.Fatalf("tool_calls: %+v %v", rows, err)
	}
	r := rows[0]
	if r.Tool != "place_order" || r.ResultBytes != int64(len("order #42")) || r.Latency < 0 || r.ArgsHash == "" {
		t.Fatalf("tool call row %+v", r)
	}
}

func TestInjectContextAndDisclaimerBuiltins(t *testing.T) {
	s := startStack(t, `hooks:
  - id: ctx
    event: session_start
    handler: {type: builtin, name: inject_context, with: {template: "Session {{.session}}: be careful."}}
  - id: legal
    event: pre_response
    handler: {type: builtin, name: disclaimer, with: {text: "Not legal advice."}}
`)
	answer := mockupstream.StreamSpec{Texts: []string{"Yes."}}
	s.mock.Enqueue(mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	_, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"may I?"}]}`), map[string]string{"X-Session-Id": "s-ctx"})
	if !strings.Contains(string(body), `"content":"\n\nNot legal advice."`) {
		t.Fatalf("no disclaimer:\n%s", body)
	}
	if got := gjson.GetBytes(s.mock.Requests()[0].Body, "messages.0.content").String(); got != "Session s-ctx: be careful." {
		t.Fatalf("context %q", got)
	}
}

func TestRedisRateLimitIsSharedByTwoInstances(t *testing.T) {
	testenv.Redis(t)
	mock := mockupstream.Start(t)
	mock.Handle(mockupstream.Always(oneCall("search", `{"q":"x"}`)))
	prefix := "e2e-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	doc := `listen: 127.0.0.1:0
admin: {listen: "127.0.0.1:0"}
upstreams: [{name: mock, base_url: "` + mock.URL() + `"}]
hooks:
  - id: shared-budget
    event: pre_tool_use
    handler: {type: builtin, name: rate_limit, with: {limit: 3, window: 1m, redis: {key_prefix: "` + prefix + `"}}}
`
	a, b := &stack{mock: mock, app: startApp(t, doc)}, &stack{mock: mock, app: startApp(t, doc)}
	allowed := 0
	for i := 0; i < 6; i++ {
		s := a
		if i%2 == 1 {
			s = b
		}
		if n, _ := callsThrough(t, s, nil); n == 1 {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("%d calls allowed across two instances sharing a budget of 3", allowed)
	}
}
