package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// noteCanary stands for internal detail a failing hook's error carries: a
// store error, a file path, a stack position.
const noteCanary = "SQLITE_BUSY-canary-7d41 /srv/hookgate/internal/store.go:88"

// TestFailureNotesNeverCarryTheError makes every handler kind fail with a
// distinctive internal string (a canary) and checks that the note the
// client gets names the hook only, while the execution's error (which the
// audit seals in full and the log prints) carries the canary.
func TestFailureNotesNeverCarryTheError(t *testing.T) {
	policy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/hang":
			<-r.Context().Done()
		case "/500":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, noteCanary)
		case "/v1/chat/completions": // a judge answering prose
			fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"j","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"I cannot decide: %s"}}]}`, noteCanary)
		case "/junk":
			fmt.Fprintf(w, "<html>%s</html>", noteCanary)
		default: // a verdict that is no decision
			fmt.Fprintf(w, `{"decision":%q,"reason":"x"}`, noteCanary)
		}
	}))
	defer policy.Close()
	// The policy server's address is internal too (a URL in a Go error).
	addr := strings.TrimPrefix(policy.URL, "http://")

	dir := t.TempDir()
	crash := extWriteScript(t, dir, "crash.sh", "#!/bin/sh\necho '"+noteCanary+"' >&2\nexit 1\n")
	prose := extWriteScript(t, dir, "prose.sh", "#!/bin/sh\necho 'cannot open "+noteCanary+"'\n")

	reg := NewBuiltins()
	if err := reg.Register("store_down", BuiltinFactoryFunc(func(BuiltinConfig) (Handler, error) {
		return handlerFunc(func(context.Context, *Event) (Result, error) {
			return Result{}, fmt.Errorf("approval: store: create confirmation: begin: database is locked (5) (%s)", noteCanary)
		}), nil
	})); err != nil {
		t.Fatal(err)
	}
	deps := Deps{
		Judges: map[string]JudgeEndpoint{"": {BaseURL: policy.URL + "/v1", APIKey: "sk-note-judge"}},
		Logger: slog.New(slog.DiscardHandler),
	}

	cases := []struct {
		name    string
		event   EventName
		handler HandlerSpec
		ifExpr  string
		canary  string
		want    Decision // the hook's own decision: error or timeout
		note    string   // "failed", "timed out"
		// noDetail: the canary is not expected in the execution's error.
		noDetail bool
	}{
		{name: "script throws", handler: HandlerSpec{Type: "script", Source: "function handle(e) { throw new Error('" + noteCanary + "') }"}, canary: noteCanary, want: Error, note: "failed"},
		{name: "script returns junk", handler: HandlerSpec{Type: "script", Source: "function handle(e) { return {decision: '" + noteCanary + "'} }"}, canary: noteCanary, want: Error, note: "failed"},
		{name: "command crashes", handler: HandlerSpec{Type: "command", Command: []string{crash}}, canary: noteCanary, want: Error, note: "failed"},
		{name: "command prints prose", handler: HandlerSpec{Type: "command", Command: []string{prose}}, canary: "SQLITE_BUSY-canary-7d41", want: Error, note: "failed"},
		{name: "http unknown decision", handler: HandlerSpec{Type: "http", URL: policy.URL + "/verdict"}, canary: noteCanary, want: Error, note: "failed"},
		{name: "http junk body", handler: HandlerSpec{Type: "http", URL: policy.URL + "/junk"}, canary: "SQLITE_BUSY-canary-7d41", want: Error, note: "failed"},
		{name: "http 500", handler: HandlerSpec{Type: "http", URL: policy.URL + "/500"}, canary: addr, want: Error, note: "failed"},
		// A timeout's recorded error is the engine's ("timed out after"),
		// never the handler's; the note must not name the server either.
		{name: "http hangs", handler: HandlerSpec{Type: "http", URL: policy.URL + "/hang"}, canary: addr, want: Timeout, note: "timed out", noDetail: true},
		{name: "judge prose", handler: HandlerSpec{Type: "prompt", Instruction: "judge", Model: "j"}, canary: "SQLITE_BUSY-canary-7d41", want: Error, note: "failed"},
		{name: "builtin store error", handler: HandlerSpec{Type: "builtin", Name: "store_down"}, canary: noteCanary, want: Error, note: "failed"},
		{name: "if_expr error", handler: HandlerSpec{Type: "builtin", Name: "store_down"}, ifExpr: "toolInput.canary_missing_key_7d41 == 'x'", canary: "canary_missing_key_7d41", want: Error, note: "failed"},
		{name: "contributing script throws", event: SessionStart, handler: HandlerSpec{Type: "script", Source: "function handle(e) { throw new Error('" + noteCanary + "') }"}, canary: noteCanary, want: Error, note: "failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			event := tc.event
			if event == "" {
				event = PreToolUse
			}
			spec := Spec{ID: "canary-hook", Event: event, Trusted: true, Handler: tc.handler, IfExpr: tc.ifExpr, TimeoutMS: 1500}
			if tc.want == Timeout {
				spec.TimeoutMS = 200
			}
			e, err := Compile([]Spec{spec}, deps, Options{Builtins: reg})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ev := toolEvent("exec", map[string]any{"command": "ls"})
			if event == SessionStart {
				ev = &Event{Event: SessionStart, EventID: "ev-s", SessionID: "s-1"}
			}
			out := e.Dispatch(context.Background(), ev)

			wantOutcome := Block
			if event.Class() == Contributing {
				wantOutcome = Error
			}
			if out.Decision != wantOutcome || len(out.Executions) != 1 || out.Executions[0].Decision != tc.want {
				t.Fatalf("outcome %s with %d executions, want %s after a hook %s (%+v)", out.Decision, len(out.Executions), wantOutcome, tc.want, out)
			}
			wantNote := "hook canary-hook " + tc.note + " (fail-closed)"
			if out.Reason != wantNote {
				t.Errorf("note = %q, want %q", out.Reason, wantNote)
			}
			if strings.Contains(out.Reason, tc.canary) || strings.Contains(out.Executions[0].Reason, tc.canary) {
				t.Errorf("the canary reached the note: %q / %q", out.Reason, out.Executions[0].Reason)
			}
			x := out.Executions[0]
			if x.Cause == nil || (!tc.noDetail && !strings.Contains(x.Cause.Error(), tc.canary)) {
				t.Errorf("the execution's error lost the detail %q: %v", tc.canary, x.Cause)
			}
			if out.Cause == nil || out.Cause.Error() != x.Cause.Error() {
				t.Errorf("outcome cause %v, want the execution's", out.Cause)
			}
		})
	}
}

// TestFailureNoteIsLogged: the note hides the error from the client, so
// the log must carry it (with the hook, event and what the engine did);
// calls refused by an open breaker are logged at debug level only.
func TestFailureNoteIsLogged(t *testing.T) {
	var logs syncBuffer
	reg := NewBuiltins()
	if err := reg.Register("store_down", BuiltinFactoryFunc(func(BuiltinConfig) (Handler, error) {
		return handlerFunc(func(context.Context, *Event) (Result, error) { return Result{}, errors.New(noteCanary) }), nil
	})); err != nil {
		t.Fatal(err)
	}
	deps := Deps{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	specs := []Spec{
		{ID: "down", Event: PreToolUse, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "store_down"}},
		{ID: "lenient", Event: PostToolUse, Trusted: true, OnTimeout: "skip", AllowMutation: []string{"toolResult"}, Handler: HandlerSpec{Type: "builtin", Name: "store_down"}},
	}
	e, err := Compile(specs, deps, Options{Builtins: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Dispatch(context.Background(), toolEvent("exec", nil))
	res := "out"
	e.Dispatch(context.Background(), &Event{Event: PostToolUse, EventID: "ev-2", ToolName: "exec", ToolCallID: "c", ToolResult: &res})
	log := logs.String()
	for _, want := range []string{"hook=down", "outcome=blocked", "hook=lenient", `outcome="allowed (on_timeout)"`, "SQLITE_BUSY-canary-7d41"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}

	if got := failureNote("h", Error, fmt.Errorf("http hook: %w", ErrBreakerOpen)); got != "hook h unavailable: circuit breaker open (fail-closed)" {
		t.Errorf("breaker note = %q", got)
	}
}
