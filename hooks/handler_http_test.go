package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// extHTTPHandler builds an http handler and closes it with the test.
func extHTTPHandler(t testing.TB, event EventName, hs HandlerSpec, allowMutation ...string) *httpHandler {
	t.Helper()
	hs.Type = "http"
	h, err := newHttpHandler(&Spec{ID: "http-hook", Event: event, Handler: hs, AllowMutation: allowMutation, Trusted: true}, Deps{})
	if err != nil {
		t.Fatalf("newHttpHandler: %v", err)
	}
	hh := h.(*httpHandler)
	t.Cleanup(func() { _ = hh.Close() })
	return hh
}

// extRecorded is one request a test server saw.
type extRecorded struct {
	method, contentType, hookHeader, eventHeader, auth string
	body                                               []byte
}

func TestHTTPHandlerOutcomes(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var last atomic.Pointer[extRecorded]
	mux := http.NewServeMux()
	reply := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			last.Store(&extRecorded{
				method: r.Method, contentType: r.Header.Get("Content-Type"), hookHeader: r.Header.Get("X-Hookgate-Hook"),
				eventHeader: r.Header.Get("X-Hookgate-Event"), auth: r.Header.Get("Authorization"), body: b,
			})
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}
	}
	mux.Handle("/allow", reply(200, `{"decision":"allow","reason":"ok"}`))
	mux.Handle("/block", reply(200, `{"decision":"block","reason":"denied by policy server"}`))
	mux.Handle("/rewrite", reply(200, `{"decision":"allow","updatedResult":"[redacted]"}`))
	mux.Handle("/500", reply(500, `{"decision":"allow"}`))
	mux.Handle("/403", reply(403, `forbidden`))
	mux.Handle("/text", reply(200, `ok`))
	mux.Handle("/empty", reply(204, ``))
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"reason":"`+strings.Repeat("x", 2<<20)+`"}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	pre := extToolEvent(map[string]any{"command": "rm -rf / && echo <done>"})
	result := "password=hunter2"
	post := &Event{Event: PostToolUse, EventID: "ev-2", ToolName: "exec", ToolResult: &result}
	stop := &Event{Event: Stop, EventID: "ev-3", SessionID: "s"}
	tests := []struct {
		name     string
		path     string
		ev       *Event
		mutation []string
		want     Decision
		reason   string
		errWants string
	}{
		{name: "allow", path: "/allow", ev: pre, want: Allow, reason: "ok"},
		{name: "block", path: "/block", ev: pre, want: Block, reason: "denied by policy server"},
		{name: "500", path: "/500", ev: pre, errWants: "status 500"},
		{name: "403", path: "/403", ev: pre, errWants: "status 403"},
		{name: "non-JSON for a blocking event", path: "/text", ev: pre, errWants: "not a JSON object"},
		{name: "empty for a blocking event", path: "/empty", ev: pre, errWants: "verdict is required"},
		{name: "too large", path: "/big", ev: pre, errWants: "exceeds"},
		{name: "observer: text is delivered", path: "/text", ev: stop, want: Allow},
		{name: "observer: 204 is delivered", path: "/empty", ev: post, want: Allow},
		{name: "observer: 500 is an error", path: "/500", ev: stop, errWants: "status 500"},
		{name: "contributing post_tool_use needs a verdict", path: "/text", ev: post, mutation: []string{"toolResult"}, errWants: "not a JSON object"},
		{name: "contributing post_tool_use rewrites", path: "/rewrite", ev: post, mutation: []string{"toolResult"}, want: Rewrite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := extHTTPHandler(t, tc.ev.Event, HandlerSpec{URL: srv.URL + tc.path, Headers: map[string]string{"Authorization": "Bearer policy-token"}}, tc.mutation...)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := h.Handle(ctx, tc.ev)
			if tc.errWants != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWants) {
					t.Fatalf("err = %v, want one containing %q (result %+v)", err, tc.errWants, res)
				}
				if strings.Contains(err.Error(), tc.path) {
					t.Fatalf("error names the URL path: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Handle: %v", err)
			}
			if res.Decision != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Fatalf("result = %+v, want %s with reason containing %q", res, tc.want, tc.reason)
			}
			rec := last.Load()
			if rec.method != http.MethodPost || rec.contentType != "application/json" || rec.auth != "Bearer policy-token" ||
				rec.hookHeader != h.id || rec.eventHeader != string(tc.ev.Event) {
				t.Fatalf("request = %+v", rec)
			}
			var got Event
			if err := json.Unmarshal(rec.body, &got); err != nil || got.EventID != tc.ev.EventID {
				t.Fatalf("body is not the event: %v\n%s", err, rec.body)
			}
			if tc.ev == pre && !strings.Contains(string(rec.body), "rm -rf / && echo <done>") {
				t.Fatalf("tool input not sent byte for byte: %s", rec.body)
			}
		})
	}
}

// TestHTTPHandlerTimeout: a policy server that hangs is an error at the
// deadline, promptly.
func TestHTTPHandlerTimeout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	h := extHTTPHandler(t, PreToolUse, HandlerSpec{URL: srv.URL})
	const timeout = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	_, err := h.Handle(ctx, extToolEvent(nil))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > timeout+2*time.Second { // the server holds until released
		t.Fatalf("returned after %v", d)
	}
}

// TestHTTPHandlerNoRedirect: a 3xx is an error and its Location is never
// visited, so a hook URL cannot be bounced to another host.
func TestHTTPHandlerNoRedirect(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var visited atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		visited.Add(1)
		_, _ = io.WriteString(w, `{"decision":"allow"}`)
	}))
	defer target.Close()
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		bouncer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/internal-admin", status)
		}))
		for _, ev := range []*Event{extToolEvent(nil), {Event: Stop}} {
			h := extHTTPHandler(t, ev.Event, HandlerSpec{URL: bouncer.URL})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := h.Handle(ctx, ev)
			cancel()
			if err == nil || !strings.Contains(err.Error(), "redirects are not followed") {
				t.Errorf("status %d, %s: err = %v", status, ev.Event, err)
			}
			_ = h.Close()
		}
		bouncer.Close()
	}
	if n := visited.Load(); n != 0 {
		t.Fatalf("redirect target visited %d times", n)
	}
}

// TestHTTPHandlerTemplate shapes the body for a chat webhook; values are
// JSON-escaped by the json function.
func TestHTTPHandlerTemplate(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	bodies := make(chan []byte, 1)
	var contentType atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		contentType.Store(r.Header.Get("Content-Type"))
		bodies <- b
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	h := extHTTPHandler(t, Stop, HandlerSpec{
		URL:      srv.URL + "/services/T000/B000/SECRET",
		Template: `{"text": {{json (printf "%s finished: %s" .SessionID .Response)}}, "meta": {{json .Metadata}}}`,
	})
	ev := &Event{Event: Stop, SessionID: `s"1`, Response: "done\n</b> & \"quoted\"", Metadata: map[string]any{"route": "/v1/chat"}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := h.Handle(ctx, ev)
	if err != nil || res.Decision != Allow || len(res.SideEffects) != 1 || strings.Contains(res.SideEffects[0], "SECRET") {
		t.Fatalf("Handle = %+v, %v", res, err)
	}
	var got struct {
		Text string         `json:"text"`
		Meta map[string]any `json:"meta"`
	}
	body := <-bodies
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("template produced invalid JSON: %v\n%s", err, body)
	}
	if want := `s"1 finished: done` + "\n" + `</b> & "quoted"`; got.Text != want || got.Meta["route"] != "/v1/chat" {
		t.Fatalf("body = %s", body)
	}
	if ct := contentType.Load(); ct != "application/json" {
		t.Fatalf("content type = %v", ct)
	}

	// A template naming a key the event lacks is an error, not "<no value>".
	h = extHTTPHandler(t, PreToolUse, HandlerSpec{URL: srv.URL, Template: `{"cmd": {{json .ToolInput.command}}}`})
	if _, err := h.Handle(ctx, extToolEvent(map[string]any{"path": "x"})); err == nil || !strings.Contains(err.Error(), "template") {
		t.Fatalf("missing key: err = %v", err)
	}
	select {
	case b := <-bodies:
		t.Fatalf("a body was sent although the template failed: %s", b)
	default:
	}
}

func TestNewHTTPHandlerValidation(t *testing.T) {
	tests := []struct {
		name    string
		hs      HandlerSpec
		wantErr string
	}{
		{name: "empty url", hs: HandlerSpec{}, wantErr: "empty"},
		{name: "relative url", hs: HandlerSpec{URL: "/hook"}, wantErr: "scheme"},
		{name: "file scheme", hs: HandlerSpec{URL: "file:///etc/passwd"}, wantErr: "scheme"},
		{name: "no host", hs: HandlerSpec{URL: "http://"}, wantErr: "no host"},
		{name: "user info", hs: HandlerSpec{URL: "https://user:pw@policy.internal/hook"}, wantErr: "user info"},
		{name: "header injection", hs: HandlerSpec{URL: "http://policy.internal", Headers: map[string]string{"X-A": "v\r\nX-Evil: 1"}}, wantErr: "CR, LF"},
		{name: "bad header name", hs: HandlerSpec{URL: "http://policy.internal", Headers: map[string]string{"X A": "v"}}, wantErr: "header name"},
		{name: "bad template", hs: HandlerSpec{URL: "http://policy.internal", Template: "{{.Nope"}, wantErr: "template"},
		{name: "format", hs: HandlerSpec{URL: "http://policy.internal", Format: "claude_code"}, wantErr: "command hooks only"},
		{name: "ok", hs: HandlerSpec{URL: "https://policy.internal:8443/v1/check?x=1", Headers: map[string]string{"X-Api-Key": "k"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.hs.Type = "http"
			h, err := newHttpHandler(&Spec{ID: "v", Event: PreToolUse, Handler: tc.hs}, Deps{})
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
			if strings.Contains(err.Error(), "pw@") {
				t.Fatalf("error repeats credentials: %v", err)
			}
		})
	}
}

func BenchmarkHTTPHandler(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"decision":"allow"}`)
	}))
	defer srv.Close()
	h := extHTTPHandler(b, PreToolUse, HandlerSpec{URL: srv.URL})
	ev := extToolEvent(map[string]any{"command": "ls -la /tmp", "timeout": 30})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := h.Handle(ctx, ev)
		if err != nil || res.Decision != Allow {
			b.Fatalf("Handle = %+v, %v", res, err)
		}
	}
}

// TestHTTPHandlerCloseReleasesConns: Close alone (the server still up)
// lets every connection goroutine of the handler go.
func TestHTTPHandlerCloseReleasesConns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"decision":"allow"}`)
	}))
	defer srv.Close()
	baseline := goleak.IgnoreCurrent()
	h := extHTTPHandler(t, PreToolUse, HandlerSpec{URL: srv.URL})
	for range 3 {
		if _, err := h.Handle(context.Background(), extToolEvent(nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	goleak.VerifyNone(t, baseline)
}
