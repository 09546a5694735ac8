package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// soakGoodAnswer is what hookgate sends for the soak's answer: the
// upstream's events without the blocked call's, and the block note as a
// content delta before the finish.
func soakGoodAnswer(noteNewline bool) []byte {
	allowedOnly := soakSpec(42)
	allowedOnly.Calls = allowedOnly.Calls[:1]
	events := mockupstream.Chunks(allowedOnly.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})
	note := soakBlockNote + `\n`
	if noteNewline {
		note = `\n` + note
	}
	var b bytes.Buffer
	for _, ev := range events {
		if bytes.Contains(ev, []byte(`"finish_reason":"tool_calls"`)) {
			b.WriteString(`data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + note + `"},"finish_reason":null}]}` + "\n\n")
			b.WriteString(": hookgate heartbeat\n\n")
		}
		b.Write(ev)
	}
	return b.Bytes()
}

// The soak's check passes hookgate's answer, and fails every way it can
// be wrong.
func TestCheckSoakAnswer(t *testing.T) {
	good := string(soakGoodAnswer(false))
	replace := func(old, new string) []byte {
		if !strings.Contains(good, old) {
			t.Fatalf("the good answer has no %q", old)
		}
		return []byte(strings.Replace(good, old, new, 1))
	}
	finishAt := strings.Index(good, `data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","created"`)
	for _, tc := range []struct {
		name   string
		status int
		body   []byte
		want   string // "" passes
	}{
		{"hookgate's answer", 200, []byte(good), ""},
		{"the note on a line of its own", 200, soakGoodAnswer(true), ""},
		{"status", 503, []byte(good), "status 503"},
		{"no [DONE]", 200, []byte(strings.TrimSuffix(good, "data: [DONE]\n\n")), "does not end with data: [DONE]"},
		{"two [DONE]", 200, []byte(strings.Replace(good, ": hookgate heartbeat\n\n", "data: [DONE]\n\n", 1)), "2 [DONE] events"},
		{"the blocked call leaks", 200, replace(`"id":"call_soak_ok_00000042"`, `"id":"call_soak_rm_00000042"`), "blocked call's id"},
		{"the allowed call's id changed", 200, replace(`"id":"call_soak_ok_00000042"`, `"id":"call_other"`), "id is missing"},
		{"arguments changed", 200, replace(`/srv/app`, `/srv/ap`), "arguments"},
		{"text changed", 200, replace(`"content":"look "`, `"content":"peek "`), "not intact"},
		{"no note", 200, replace(`[hookgate] tool call`, `tool call`), "want the block note"},
		{"an error event", 200, []byte(good[:finishAt] + "data: {\"error\":{\"code\":\"stream_truncated\"}}\n\n" + good[finishAt:]), "error event"},
		{"not JSON", 200, []byte(good[:finishAt] + "data: {oops\n\n" + good[finishAt:]), "not JSON"},
		{"no finish", 200, replace(`"finish_reason":"tool_calls"`, `"finish_reason":null`), "finish_reason"},
		{"no usage", 200, replace(`"usage":{`, `"usagex":{`), "usage chunk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkSoakAnswer(tc.status, tc.body)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("want pass, got %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			}
		})
	}
}

// Without hooks the soak holds hookgate to the upstream's bytes.
func TestSoakScenarioWithoutHooksWantsTheUpstreamsBytes(t *testing.T) {
	sc, err := SoakScenario(SoakHooksNone, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.check(false, 200, sc.Response.Body); err != nil {
		t.Fatal(err)
	}
	if err := sc.check(false, 200, soakSpec(7).SSE()); err != nil {
		t.Fatal(err)
	}
	if err := sc.check(false, 200, bytes.Replace(soakSpec(7).SSE(), []byte("rm -rf"), []byte("rm -fr"), 1)); err == nil {
		t.Fatal("a changed answer passed the check without hooks")
	}
	if err := sc.check(false, 200, soakGoodAnswer(false)); err == nil {
		t.Fatal("a rewritten answer passed the check without hooks")
	}
	if _, err := SoakScenario("cel", 0); err == nil {
		t.Fatal("an unknown hooks mode was accepted")
	}
}
