package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

const extJudgeKey = "sk-judge-canary-7f3a9c"

// extJudge is a mock OpenAI-compatible chat completions server. It answers
// with the content set for the test and records what it was asked.
type extJudge struct {
	mu      sync.Mutex
	content string
	status  int    // 0: 200
	raw     string // when set, sent as the body instead of a completion
	hang    bool
	finish  string
	req     map[string]any
	path    string
	auth    string
	srv     *httptest.Server
}

// newExtJudge starts a judge; the caller closes j.srv (before its leak
// check runs, hence no t.Cleanup).
func newExtJudge(t *testing.T) *extJudge {
	t.Helper()
	j := &extJudge{}
	j.srv = httptest.NewServer(http.HandlerFunc(j.serve))
	return j
}

func (j *extJudge) set(f func(j *extJudge)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.content, j.status, j.raw, j.hang, j.finish = "", 0, "", false, "stop"
	f(j)
}

func (j *extJudge) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	j.mu.Lock()
	_ = json.Unmarshal(body, &j.req)
	j.path, j.auth = r.URL.Path, r.Header.Get("Authorization")
	content, status, raw, hang, finish := j.content, j.status, j.raw, j.hang, j.finish
	j.mu.Unlock()
	if hang {
		<-r.Context().Done()
		return
	}
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if raw != "" {
		_, _ = io.WriteString(w, raw)
		return
	}
	resp := map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "judge-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content}}},
	}
	_ = json.NewEncoder(w).Encode(resp)
}

// extPromptHandler builds a prompt handler asking baseURL; the caller
// closes it.
func extPromptHandler(t *testing.T, baseURL string) *promptHandler {
	t.Helper()
	spec := &Spec{ID: "judge-hook", Event: PreToolUse, Handler: HandlerSpec{
		Type: "prompt", Instruction: "Block any command that deletes files outside /tmp.", Model: "judge-model",
	}}
	h, err := newPromptHandler(spec, Deps{Judges: map[string]JudgeEndpoint{"": {BaseURL: baseURL, APIKey: extJudgeKey}}})
	if err != nil {
		t.Fatalf("newPromptHandler: %v", err)
	}
	return h.(*promptHandler)
}

func TestPromptHandler(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	judge := newExtJudge(t)
	defer judge.srv.Close()
	h := extPromptHandler(t, judge.srv.URL+"/v1")
	defer h.Close()
	// Each case checks one answer's own error; more than five failures in
	// a row would open the breaker, which has its own tests.
	h.breaker = nil
	ev := extToolEvent(map[string]any{"command": "rm -rf /home"})

	tests := []struct {
		name     string
		setup    func(j *extJudge)
		want     Decision
		reason   string
		errWants string
	}{
		{name: "allow", setup: func(j *extJudge) { j.content = `{"decision":"allow","reason":"harmless"}` }, want: Allow, reason: "harmless"},
		{name: "block", setup: func(j *extJudge) { j.content = `{"decision": "block", "reason": "deletes /home"}` }, want: Block, reason: "deletes /home"},
		{name: "fenced", setup: func(j *extJudge) { j.content = "```json\n{\"decision\":\"block\",\"reason\":\"fenced\"}\n```" }, want: Block, reason: "fenced"},
		{name: "whitespace", setup: func(j *extJudge) { j.content = "\n  {\"decision\":\"allow\",\"reason\":\"\"}  \n" }, want: Allow},
		{name: "prose", setup: func(j *extJudge) { j.content = `I think this is fine: {"decision":"allow","reason":"x"}` }, errWants: "prose"},
		{name: "prose after", setup: func(j *extJudge) { j.content = `{"decision":"allow","reason":"x"} Hope that helps!` }, errWants: "trailing"},
		{name: "missing reason", setup: func(j *extJudge) { j.content = `{"decision":"allow"}` }, errWants: "missing reason"},
		{name: "missing decision", setup: func(j *extJudge) { j.content = `{"reason":"looks fine"}` }, errWants: "missing decision"},
		{name: "unknown decision", setup: func(j *extJudge) { j.content = `{"decision":"approve","reason":"x"}` }, errWants: "not allow or block"},
		{name: "reason not a string", setup: func(j *extJudge) { j.content = `{"decision":"allow","reason":42}` }, errWants: "judge verdict"},
		{name: "empty", setup: func(j *extJudge) { j.content = `` }, errWants: "nothing"},
		{name: "truncated", setup: func(j *extJudge) { j.content = `{"decision":"allow"`; j.finish = "length" }, errWants: "cut off"},
		{name: "no choices", setup: func(j *extJudge) { j.raw = `{"id":"x","choices":[]}` }, errWants: "no choices"},
		{name: "server error echoing the key", setup: func(j *extJudge) {
			j.status = 401
			j.raw = `{"error":{"message":"Incorrect API key provided: ` + extJudgeKey + `","type":"invalid_request_error"}}`
		}, errWants: "401"},
		{name: "judge down", setup: func(j *extJudge) { j.status = 503; j.raw = `upstream unavailable` }, errWants: "503"},
		{name: "body too large", setup: func(j *extJudge) { j.raw = `{"id":"` + strings.Repeat("x", 2<<20) + `"}` }, errWants: "exceeds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judge.set(tc.setup)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := h.Handle(ctx, ev)
			if tc.errWants != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWants) {
					t.Fatalf("err = %v, want one containing %q (result %+v)", err, tc.errWants, res)
				}
				if strings.Contains(err.Error(), extJudgeKey) {
					t.Fatalf("error carries the judge key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			if res.Decision != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("result = %+v, want %s with reason containing %q", res, tc.want, tc.reason)
			}
		})
	}
}

// TestPromptHandlerRequest checks what the judge is asked: the configured
// model, the operator's instruction as system text, the event JSON as the
// user message, JSON mode, the key only in the Authorization header.
func TestPromptHandlerRequest(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	judge := newExtJudge(t)
	defer judge.srv.Close()
	judge.set(func(j *extJudge) { j.content = `{"decision":"allow","reason":"ok"}` })
	h := extPromptHandler(t, judge.srv.URL+"/v1/")
	defer h.Close()
	ev := extToolEvent(map[string]any{"command": "ls /tmp"})
	if _, err := h.Handle(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	judge.mu.Lock()
	req, path, auth := judge.req, judge.path, judge.auth
	judge.mu.Unlock()
	if path != "/v1/chat/completions" {
		t.Errorf("path = %q", path)
	}
	if auth != "Bearer "+extJudgeKey {
		t.Errorf("Authorization = %q", auth)
	}
	if req["model"] != "judge-model" {
		t.Errorf("model = %v", req["model"])
	}
	if rf, _ := req["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format = %v", req["response_format"])
	}
	msgs, _ := req["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v", req["messages"])
	}
	sys, _ := msgs[0].(map[string]any)
	user, _ := msgs[1].(map[string]any)
	sysText, _ := sys["content"].(string)
	if sys["role"] != "system" || !strings.HasPrefix(sysText, "Block any command that deletes files outside /tmp.") ||
		!strings.Contains(sysText, `"decision"`) {
		t.Errorf("system message = %v", sys)
	}
	userText, _ := user["content"].(string)
	var got Event
	if user["role"] != "user" || json.Unmarshal([]byte(userText), &got) != nil || got.ToolInput["command"] != "ls /tmp" {
		t.Errorf("user message = %v", user)
	}
	if strings.Contains(userText, extJudgeKey) || strings.Contains(sysText, extJudgeKey) {
		t.Error("the judge key reached the messages")
	}
}

// TestPromptHandlerTimeout: a judge that hangs is an error at the deadline.
func TestPromptHandlerTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	judge := newExtJudge(t)
	defer judge.srv.Close()
	judge.set(func(j *extJudge) { j.hang = true })
	h := extPromptHandler(t, judge.srv.URL+"/v1")
	defer h.Close()
	const timeout = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	_, err := h.Handle(ctx, extToolEvent(nil))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > timeout+2*time.Second { // the judge hangs until closed
		t.Fatalf("returned after %v", d)
	}
	if strings.Contains(err.Error(), "/v1") {
		t.Fatalf("error names the URL path: %v", err)
	}
}

// TestPromptHandlerNoRedirect: a judge URL cannot be bounced elsewhere.
func TestPromptHandlerNoRedirect(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	judge := newExtJudge(t)
	defer judge.srv.Close()
	judge.set(func(j *extJudge) { j.content = `{"decision":"allow","reason":"from the redirect target"}` })
	bouncer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, judge.srv.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer bouncer.Close()
	h := extPromptHandler(t, bouncer.URL+"/v1")
	defer h.Close()
	_, err := h.Handle(context.Background(), extToolEvent(nil))
	if !errors.Is(err, errJudgeRedirect) {
		t.Fatalf("err = %v, want errJudgeRedirect", err)
	}
	judge.mu.Lock()
	defer judge.mu.Unlock()
	if judge.path != "" {
		t.Fatalf("redirect target was asked (%s)", judge.path)
	}
}

func TestNewPromptHandlerValidation(t *testing.T) {
	judges := map[string]JudgeEndpoint{"": {BaseURL: "http://127.0.0.1:1/v1", APIKey: extJudgeKey}, "bad": {BaseURL: "ftp://x"}}
	tests := []struct {
		name    string
		hs      HandlerSpec
		judges  map[string]JudgeEndpoint
		wantErr string
	}{
		{name: "no instruction", hs: HandlerSpec{Model: "m"}, judges: judges, wantErr: "instruction"},
		{name: "no model", hs: HandlerSpec{Instruction: "i"}, judges: judges, wantErr: "model"},
		{name: "no default judge", hs: HandlerSpec{Instruction: "i", Model: "m"}, wantErr: "no default judge"},
		{name: "unknown upstream", hs: HandlerSpec{Instruction: "i", Model: "m", Upstream: "nope"}, judges: judges, wantErr: `upstream "nope"`},
		{name: "bad judge url", hs: HandlerSpec{Instruction: "i", Model: "m", Upstream: "bad"}, judges: judges, wantErr: "scheme"},
		{name: "ok", hs: HandlerSpec{Instruction: "i", Model: "m"}, judges: judges},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.hs.Type = "prompt"
			h, err := newPromptHandler(&Spec{ID: "p", Event: PreToolUse, Handler: tc.hs}, Deps{Judges: tc.judges})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				_ = h.(Closer).Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), extJudgeKey) {
				t.Fatalf("error carries the key: %v", err)
			}
		})
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		in   string
		want Decision
		ok   bool
	}{
		{`{"decision":"allow","reason":"r"}`, Allow, true},
		{"```\n{\"decision\":\"block\",\"reason\":\"r\"}\n```", Block, true},
		{"```JSON\n{\"decision\":\"block\",\"reason\":\"r\"}\n```", Block, true},
		{`{"decision":"allow","reason":"r","confidence":0.9}`, Allow, true},
		{"```python\n{\"decision\":\"allow\",\"reason\":\"r\"}\n```", "", false},
		{"```\n{\"decision\":\"allow\",\"reason\":\"r\"}", "", false},
		{`{"decision":"Allow","reason":"r"}`, "", false},
		{`{"decision":null,"reason":"r"}`, "", false},
		{`{"decision":"allow","reason":null}`, "", false},
		{`[{"decision":"allow","reason":"r"}]`, "", false},
		{`allow`, "", false},
	}
	for _, tc := range tests {
		res, err := parseVerdict(tc.in)
		if tc.ok != (err == nil) || (tc.ok && res.Decision != tc.want) {
			t.Errorf("parseVerdict(%q) = %+v, %v", tc.in, res, err)
		}
	}
}
