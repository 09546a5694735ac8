package hooks

import (
	"errors"
	"strings"
	"testing"
)

func TestCompileReportsEveryErrorWithItsLine(t *testing.T) {
	reg := newEngRegistry(t)
	ok := engSpec("ok", PreToolUse, "counter", map[string]any{"name": "ok"})
	specs := []Spec{
		ok,
		{ID: "ok", Event: PreToolUse, Line: 12, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "bad-event", Event: "pre_tool", Line: 20, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "bad-regex", Event: PreToolUse, Matcher: "(", Line: 30, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "bad-cel", Event: PreToolUse, IfExpr: "toolInput.command.contains(", Line: 40, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "cel-type", Event: PreToolUse, IfExpr: "toolName + 'x'", Line: 45, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "cel-unknown-var", Event: PreToolUse, IfExpr: "tool_name == 'x'", Line: 47, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "on-timeout", Event: PreToolUse, OnTimeout: "skip", Line: 50, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "on-timeout-2", Event: SessionStart, OnTimeout: "block", Line: 55, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "scope", Event: PreToolUse, Scope: "team:x", Line: 60, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "mode", Event: PreToolUse, Mode: "append", Line: 70, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "mode-2", Event: PreResponse, Mode: "shout", Line: 75, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "mutation", Event: PreToolUse, AllowMutation: []string{"toolResult", "prompt", "toolInput..x"}, Line: 80, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "type", Event: PreToolUse, Line: 90, Trusted: true, Handler: HandlerSpec{Type: "lambda"}},
		{ID: "keys", Event: PreToolUse, Line: 100, Trusted: true, Handler: HandlerSpec{Type: "script", Source: "function handle(e){return {decision:'allow'}}", URL: "http://x"}},
		{ID: "untrusted", Event: PreToolUse, Scope: "tenant:acme", Line: 110, Handler: HandlerSpec{Type: "command", Command: []string{"/bin/true"}}},
		{ID: "untrusted-global", Event: PreToolUse, Line: 115, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "unknown-builtin", Event: PreToolUse, Line: 120, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "nope"}},
		{ID: "bad-with", Event: PreToolUse, Line: 125, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter", With: map[string]any{"nmae": "x"}}},
		{ID: "bad-script", Event: PreToolUse, Line: 130, Trusted: true, Handler: HandlerSpec{Type: "script", Source: "function handle(e) { return {"}},
		{ID: "no-handle", Event: PreToolUse, Line: 135, Trusted: true, Handler: HandlerSpec{Type: "script", Source: "function other(e) {}"}},
		{ID: "matcher-no-tool", Event: Stop, Matcher: "x", Line: 140, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "timeout", Event: PreToolUse, TimeoutMS: -1, Line: 150, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "on-block", Event: Stop, OnBlock: "retry", Line: 160, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "", Event: PreToolUse, Line: 170, Origin: "tenants/acme.yaml", Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
		{ID: "two-problems", Event: PreToolUse, Matcher: "[", Scope: "x", Line: 180, Trusted: true, Handler: HandlerSpec{Type: "builtin", Name: "counter"}},
	}
	_, err := Compile(specs, Deps{}, Options{Builtins: reg.Builtins})
	var ces ConfigErrors
	if !errors.As(err, &ces) {
		t.Fatalf("err = %v, want ConfigErrors", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`hooks[1] "ok" (line 12): id: duplicate hook id "ok"`,
		`hooks[2] "bad-event" (line 20): event: unknown event "pre_tool"`,
		`hooks[3] "bad-regex" (line 30): matcher:`,
		`hooks[4] "bad-cel" (line 40): if_expr:`,
		`hooks[5] "cel-type" (line 45): if_expr: must be a bool expression`,
		`hooks[6] "cel-unknown-var" (line 47): if_expr:`,
		`hooks[7] "on-timeout" (line 50): on_timeout: "skip" for blocking event`,
		`hooks[8] "on-timeout-2" (line 55): on_timeout: "block"`,
		`hooks[9] "scope" (line 60): scope:`,
		`hooks[10] "mode" (line 70): mode: only pre_response`,
		`hooks[11] "mode-2" (line 75): mode: "shout"`,
		`hooks[12] "mutation" (line 80): allow_mutation "toolResult"`,
		`hooks[12] "mutation" (line 80): allow_mutation "prompt"`,
		`hooks[12] "mutation" (line 80): allow_mutation "toolInput..x"`,
		`hooks[13] "type" (line 90): handler.type: unknown handler type "lambda"`,
		`hooks[14] "keys" (line 100): handler.url: not a key of a script handler`,
		`hooks[15] "untrusted" (line 110): handler.type: an untrusted (tenant) hook may use script and builtin handlers only`,
		`hooks[16] "untrusted-global" (line 115): scope: an untrusted`,
		`hooks[17] "unknown-builtin" (line 120): handler (builtin): unknown builtin "nope"`,
		`hooks[18] "bad-with" (line 125): handler (builtin): builtin counter: with: json: unknown field "nmae"`,
		`hooks[19] "bad-script" (line 130): handler (script):`,
		`hooks[20] "no-handle" (line 135): handler (script): script: does not define function handle`,
		`hooks[21] "matcher-no-tool" (line 140): matcher: only pre_tool_use and post_tool_use`,
		`hooks[22] "timeout" (line 150): timeout_ms: -1 is negative`,
		`hooks[23] "on-block" (line 160): on_block: only blocking events`,
		`hooks[24] (tenants/acme.yaml line 170): id: required`,
		`hooks[25] "two-problems" (line 180): matcher:`,
		`hooks[25] "two-problems" (line 180): scope:`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q", want)
		}
	}
	if len(ces) != 28 {
		t.Errorf("got %d errors, want 28:\n%s", len(ces), msg)
	}
	if strings.Contains(msg, "\n  hooks[0] ") {
		t.Errorf("the valid entry was reported:\n%s", msg)
	}
}

func TestCompileValidAndVersions(t *testing.T) {
	reg := newEngRegistry(t)
	a := engSpec("a", PreToolUse, "counter", map[string]any{"name": "a"})
	a.Matcher, a.IfExpr, a.TimeoutMS, a.OnTimeout, a.Scope = "^exec$", "toolName == 'exec'", 200, "allow", "tenant:acme"
	a.AllowMutation = []string{"toolInput.command", "toolInput"}
	b := engSpec("b", PreResponse, "counter", map[string]any{"name": "b"})
	b.Mode, b.Line = "send", 99
	e, _ := engCompile(t, reg, []Spec{a, b}, Options{})
	hs := e.Hooks()
	if len(hs) != 2 || hs[0].ID != "a" || hs[1].Class != Contributing {
		t.Fatalf("hooks: %+v", hs)
	}
	// The version covers the configuration, not the position.
	b2 := b
	b2.Line = 5
	if hookVersion(&b, nil) != hookVersion(&b2, nil) {
		t.Fatal("version depends on the line")
	}
	b2.Mode = "append"
	if hookVersion(&b, nil) == hookVersion(&b2, nil) {
		t.Fatal("version ignores the mode")
	}
}

func TestCELVariablesCoverEveryEventField(t *testing.T) {
	// Every JSON field of Event must be declared as a CEL variable.
	declared := map[string]bool{"toolInput": true, "metadata": true, "tool": true}
	for _, n := range celStringVars {
		declared[n] = true
	}
	for _, f := range jsonFieldNames(Event{}) {
		if !declared[f] {
			t.Errorf("Event field %s is not a CEL variable", f)
		}
		if _, ok := (eventActivation{&Event{}}).ResolveName(f); !ok {
			t.Errorf("Event field %s is not resolved", f)
		}
	}
	c, err := compileCondition(`event == 'pre_tool_use' && eventId == 'e' && sessionId == 's' && parentSessionId == 'p' &&
		tenant == 't' && agent == 'a' && user == 'u' && provider == 'openai' && model == 'm' && toolName == 'x' &&
		toolCallId == 'c' && toolInput.n > 3 && toolResult == 'r' && prompt == 'hi' && response == '' &&
		metadata.route == '/v1' && toolInput.?missing.orValue('d') == 'd'`, DefaultCELCostLimit)
	if err != nil {
		t.Fatal(err)
	}
	r := "r"
	ok, err := c.eval(&Event{Event: PreToolUse, EventID: "e", SessionID: "s", ParentSessionID: "p", Tenant: "t", Agent: "a",
		User: "u", Provider: "openai", Model: "m", ToolName: "x", ToolCallID: "c", ToolInput: map[string]any{"n": 4.0},
		ToolResult: &r, Prompt: "hi", Metadata: map[string]any{"route": "/v1"}})
	if err != nil || !ok {
		t.Fatalf("eval = %v, %v", ok, err)
	}
}

func TestCELCostLimit(t *testing.T) {
	c, err := compileCondition(`toolInput.items.all(a, toolInput.items.all(b, a != b || a == b))`, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, 1000)
	for i := range items {
		items[i] = float64(i)
	}
	if _, err := c.eval(&Event{ToolInput: map[string]any{"items": items}}); err == nil || !strings.Contains(err.Error(), "cost") {
		t.Fatalf("err = %v, want a cost limit error", err)
	}
}
