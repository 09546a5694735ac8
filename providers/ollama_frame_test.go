package providers

import (
	"errors"
	"strings"
	"testing"
)

// readOllamaStream splits and decodes a whole stream.
func readOllamaStream(t *testing.T, in []byte) []OllamaLine {
	t.Helper()
	lines, err := splitOllama(in, 17, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]OllamaLine, len(lines))
	for i, l := range lines {
		if err := out[i].Decode(l); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	return out
}

func TestOllamaFixturesDecode(t *testing.T) {
	lines := readOllamaStream(t, readFixture(t, "ollama/native-api-chat-stream-tool-call.ndjson"))
	var calls []OllamaCall
	var thinking string
	for i, l := range lines {
		calls = append(calls, l.Calls...)
		thinking += l.Thinking.Text()
		if l.Done != (i == len(lines)-1) {
			t.Errorf("line %d: done %v", i, l.Done)
		}
	}
	last := lines[len(lines)-1]
	if !last.DoneReason.Equal("stop") || string(last.EvalCount.Raw) != "42" || string(last.PromptEvalCount.Raw) != "142" {
		t.Errorf("done line: %s %s %s", last.DoneReason.Raw, last.EvalCount.Raw, last.PromptEvalCount.Raw)
	}
	if len(calls) != 1 || !calls[0].Name.Equal("weather") || !calls[0].ID.Equal("call_wi63dj03") || calls[0].Index != 0 ||
		string(calls[0].Arguments.Raw) != `{"location":"Florence, Italy"}` {
		t.Fatalf("calls %+v", calls)
	}
	if !strings.HasPrefix(thinking, "User asks current weather") {
		t.Errorf("thinking %q", thinking)
	}

	var body OllamaLine
	if err := body.Decode(readFixture(t, "ollama/native-api-chat-tool-call-qwen3.json")); err != nil {
		t.Fatal(err)
	}
	if !body.Done || len(body.Calls) != 1 || !body.Calls[0].Name.Equal("getTime") || string(body.Calls[0].Arguments.Raw) != `{}` ||
		body.Calls[0].ID.Present() || body.Calls[0].Index != -1 || !strings.HasPrefix(body.Content.Text(), "<think>\nOkay") {
		t.Fatalf("qwen3 body: %+v", body)
	}
}

func TestOllamaLineGate(t *testing.T) {
	for _, c := range []struct {
		line string
		want error
	}{
		{`{"message":{"tool_calls":[],"tool_calls":[{"function":{"name":"sh"}}]}}`, ErrDuplicateKey},
		{`{"message":{"Tool_Calls":[{"function":{"name":"sh"}}]}}`, ErrKeySpelling},
		{`{"message":{"toolCalls":[{"function":{"name":"sh"}}]}}`, ErrKeySpelling},
		{`{"message":{"TOOL_CALLS":[{"function":{"name":"sh"}}]}}`, ErrKeySpelling},
		{`{"message":{"tool_calls":[{"\u0066unction":{"name":"sh"}}]}}`, ErrKeySpelling},
		{`{"Message":{"content":"x"}}`, ErrKeySpelling},
		{`{"meſsage":{"content":"x"}}`, ErrKeySpelling},
		{`{"message":{"tool_calls":[{"function":{"Name":"sh"}}]}}`, ErrKeySpelling},
		{`{"message":{"tool_calls":[{"function":{"name":"sh","Arguments":{}}}]}}`, ErrKeySpelling},
		{`{"message":{"tool_calls":[{"function":{"name":"sh","arguments":"{\"cmd\":\"rm\"}"}}]}}`, ErrInvalidJSON},
		{`{"message":{"tool_calls":[{"function":{"name":"sh","arguments":[1]}}]}}`, ErrInvalidJSON},
		{`{"message":{"tool_calls":[{"function":null}]}}`, ErrInvalidJSON},
		{`{"message":{"tool_calls":[{"id":"x"}]}}`, ErrInvalidJSON},
		{`{"message":{"tool_calls":[{"function":"sh"}]}}`, ErrInvalidJSON},
		{`{"message":{"tool_calls":[null]}}`, ErrInvalidJSON},
		{`{"message":{"tool_calls":{"function":{"name":"sh"}}}}`, ErrInvalidJSON},
		{`{"message":"sh"}`, ErrInvalidJSON},
		{`{"message":{"tool_calls":[{"function":{"name":1}}]}}`, ErrInvalidJSON},
		{`{"message":{"tool_calls":[{"function":{"name":"sh","index":-1}}]}}`, ErrBadIndex},
		{`{"message":{"tool_calls":[{"function":{"name":"sh","index":"0"}}]}}`, ErrBadIndex},
		{`{"message":{"tool_calls":[{"function":{"name":"s` + "\xff" + `"}}]}}`, ErrInvalidJSON},
		{`{"message":{"content":1}}`, ErrInvalidJSON},
		{`{"done":"true"}`, ErrInvalidJSON},
		{`[{"message":{}}]`, ErrInvalidJSON},
		{`{"message":{}`, ErrInvalidJSON},
	} {
		var l OllamaLine
		err := l.Decode([]byte(c.line))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err %v, want %v", c.line, err, c.want)
		}
		if err != nil && (l.HasCalls() || l.HasMessage) {
			t.Errorf("%s: refused but the view is not empty", c.line)
		}
	}
	for _, ok := range []string{
		`{"message":{"tool_calls":[{"function":{"name":"sh","arguments":{"Command":"ls","COMMAND":"x","tool_calls":1}}}]}}`,
		`{"message":{"tool_calls":null,"content":null},"done":null}`,
		`{"message":null,"done":true}`,
		`{"error":"model not found"}`,
		`{"message":{"tool_calls":[{"function":{"name":"sh","arguments":null}}]}}`,
	} {
		var l OllamaLine
		if err := l.Decode([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestOllamaLineOracle runs the gate's refusals and acceptances through
// the Go client's reading: what the view accepts, it reads alike.
func TestOllamaLineOracle(t *testing.T) {
	for _, line := range []string{
		`{"message":{"tool_calls":[{"id":"a","function":{"name":"sh","arguments":{"c":"ls"}}},{"function":{"name":"rm"}}]}}`,
		`{"message":{"tool_calls":[{"function":{"name":"sh","arguments":{"\u0063":"ls"}}}]},"done":false}`,
	} {
		want, ok := oracleOllamaCalls([]byte(line))
		got, err := viewOllamaCalls([]byte(line))
		if err != nil || !ok || len(got) != len(want) {
			t.Fatalf("%s: view %v %v, oracle %v %v", line, got, err, want, ok)
		}
	}
}
