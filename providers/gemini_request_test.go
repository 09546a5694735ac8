package providers

import (
	"errors"
	"testing"

	"github.com/tidwall/gjson"
)

const geminiTurn = `{"contents":[` +
	`{"role":"user","parts":[{"text":"list files"}]},` +
	`{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"ls"}},"thoughtSignature":"c2ln"},{"functionCall":{"name":"run_shell_command","args":{"command":"pwd"}}},{"functionCall":{"id":"c9","name":"read_file","args":{"path":"a"}}}]},` +
	`{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"a b"}}},{"functionResponse":{"name":"run_shell_command","response":{"output":"/w"}}},{"functionResponse":{"id":"c9","name":"read_file","response":{"output":"x"}}}]},` +
	`{"role":"user","parts":[{"text":"now delete them"}]}],` +
	`"systemInstruction":{"parts":[{"text":"be brief"}]},` +
	`"tools":[{"functionDeclarations":[{"name":"run_shell_command","parameters":{"type":"object","properties":{"Command":{"type":"string"}}}},{"name":"read_file"}]}]}`

func TestParseGeminiRequest(t *testing.T) {
	r, err := ParseGeminiRequest([]byte(geminiTurn))
	if err != nil {
		t.Fatal(err)
	}
	if r.System != "be brief" || r.NewestUserText() != "now delete them" || r.FirstUserText() != "list files" {
		t.Errorf("texts: %q %q %q", r.System, r.NewestUserText(), r.FirstUserText())
	}
	if len(r.ToolNames) != 2 || r.ToolNames[0] != "run_shell_command" {
		t.Errorf("tools %v", r.ToolNames)
	}
	if len(r.Contents[1].Calls) != 3 || r.Contents[1].Calls[1].Args != `{"command":"pwd"}` {
		t.Errorf("calls %+v", r.Contents[1].Calls)
	}
	want := [][2]int{{1, 0}, {1, 1}, {1, 2}}
	if len(r.ToolResults) != 3 {
		t.Fatalf("results %+v", r.ToolResults)
	}
	for i, res := range r.ToolResults {
		if res.CallContent != want[i][0] || res.CallPart != want[i][1] {
			t.Errorf("result %d answers %d/%d, want %v", i, res.CallContent, res.CallPart, want[i])
		}
	}
	for _, bad := range []string{`{"contents":{}}`, `[]`, `{"system_instruction":{"parts":[{"text":"x"}]}}`, `{"contents":[],"contents":[]}`} {
		if _, err := ParseGeminiRequest([]byte(bad)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func TestGeminiRequestEdits(t *testing.T) {
	out, err := InjectGeminiSystem([]byte(geminiTurn), "session ctx", false)
	if err != nil || gjson.GetBytes(out, "systemInstruction.parts.0.text").String() != "session ctx" || gjson.GetBytes(out, "systemInstruction.parts.1.text").String() != "be brief" {
		t.Fatalf("%s %v", out, err)
	}
	out, err = InjectGeminiSystem([]byte(`{"contents":[]}`), "ctx", true)
	if err != nil || gjson.GetBytes(out, "systemInstruction.parts.0.text").String() != "ctx" {
		t.Fatalf("%s %v", out, err)
	}
	out, err = ReplaceGeminiFunctionResponse([]byte(geminiTurn), 2, 1, []byte(`{"output":"[redacted]"}`))
	if err != nil || gjson.GetBytes(out, "contents.2.parts.1.functionResponse.response.output").String() != "[redacted]" || gjson.GetBytes(out, "contents.2.parts.1.functionResponse.name").String() != "run_shell_command" {
		t.Fatalf("%s %v", out, err)
	}
	if _, err := ReplaceGeminiFunctionResponse([]byte(geminiTurn), 0, 0, []byte(`{}`)); !errors.Is(err, ErrNotFound) {
		t.Errorf("no functionResponse: %v", err)
	}
}
