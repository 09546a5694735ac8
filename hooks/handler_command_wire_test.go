package hooks

import (
	"strings"
	"testing"
)

func TestDecodeHookOutput(t *testing.T) {
	tests := []struct {
		in       string
		want     Decision
		errWants string
	}{
		{in: ` {"decision":"allow"} ` + "\n", want: Allow},
		{in: `{}`, want: Allow},
		{in: `{"reason":"noted"}`, want: Allow},
		{in: `{"decision":"block","reason":"no"}`, want: Block},
		{in: `{"decision":"allow","updatedInput":{"a":1}}`, want: Rewrite},
		{in: `{"updatedResult":"redacted"}`, want: Rewrite},
		{in: `{"decision":"rewrite"}`, want: Allow},
		{in: `{"decision":"block","updatedInput":{"a":1}}`, want: Block},
		{in: ``, errWants: "empty"},
		{in: `null`, errWants: "not a JSON object"},
		{in: `"allow"`, errWants: "not a JSON object"},
		{in: `[{"decision":"allow"}]`, errWants: "not a JSON object"},
		{in: `{"decision":"error"}`, errWants: "not one of"},
		{in: `{"decision":"ALLOW"}`, errWants: "not one of"},
		{in: `{"decision":"allow","approved":true}`, errWants: "unknown field"},
		{in: `{"decision":"allow"} trailing`, errWants: "trailing"},
		{in: `{"decision":1}`, errWants: "decode"},
	}
	for _, tc := range tests {
		res, err := decodeHookOutput([]byte(tc.in))
		if tc.errWants != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errWants) {
				t.Errorf("decodeHookOutput(%q) = %+v, %v; want error containing %q", tc.in, res, err, tc.errWants)
			}
			continue
		}
		if err != nil || res.Decision != tc.want {
			t.Errorf("decodeHookOutput(%q) = %+v, %v; want %s", tc.in, res, err, tc.want)
		}
		if res.Decision == Block && (res.UpdatedInput != nil || res.UpdatedResult != nil) {
			t.Errorf("decodeHookOutput(%q): a block kept its update", tc.in)
		}
	}
}

// FuzzDecodeHookOutput: any bytes a hook prints decode to a decision it may
// give, or to an error; never to a panic or an error/timeout decision.
func FuzzDecodeHookOutput(f *testing.F) {
	for _, seed := range []string{
		`{"decision":"allow"}`, `{"decision":"block","reason":"x"}`, `{"updatedInput":{"a":[1,{"b":null}]}}`,
		`{"updatedResult":"r","additionalContext":"c","sideEffects":["s"]}`, `{"decision":"timeout"}`, `{`, `[]`, "\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := decodeHookOutput(b)
		if err != nil {
			return
		}
		switch res.Decision {
		case Allow, Rewrite, Block:
		default:
			t.Fatalf("decision %q from %q", res.Decision, b)
		}
	})
}

// FuzzClaudeCodeOutput: any stdout and exit code of a Claude Code hook map
// to a decision or an error, and a non-zero exit other than 2 is always an
// error (fail closed).
func FuzzClaudeCodeOutput(f *testing.F) {
	for _, seed := range []string{
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`,
		`{"hookSpecificOutput":{"updatedInput":{"command":"ls"}}}`, `{"continue":false}`, `{"decision":"block"}`, `plain text`, ``,
	} {
		f.Add([]byte(seed), 0)
	}
	f.Add([]byte(`x`), 2)
	f.Add([]byte(``), 1)
	ev := &Event{Event: PreToolUse, ToolInput: map[string]any{"command": "ls"}}
	f.Fuzz(func(t *testing.T, b []byte, code int) {
		res, err := decodeClaudeCodeOutput(ev, code, b, nil)
		if code != 0 && code != 2 && err == nil {
			t.Fatalf("exit %d did not fail closed: %+v", code, res)
		}
		if err == nil && res.Decision != Allow && res.Decision != Rewrite && res.Decision != Block {
			t.Fatalf("decision %q", res.Decision)
		}
	})
}
