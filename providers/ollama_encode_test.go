package providers

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

const ollamaTwoCalls = `{"model":"m","created_at":"2026-01-05T11:28:07Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"a","function":{"index":0,"name":"sh","arguments":{"cmd":"rm -rf /"}}},{"id":"b","function":{"index":1,"name":"ls","arguments":{ "dir" : "." }}}]},"done":false}`

func TestRemoveOllamaCalls(t *testing.T) {
	out, err := RemoveOllamaCalls([]byte(ollamaTwoCalls), []int{0}, -1)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(ollamaTwoCalls, `{"id":"a","function":{"index":0,"name":"sh","arguments":{"cmd":"rm -rf /"}}},`, "", 1)
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	out, err = RemoveOllamaCalls([]byte(ollamaTwoCalls), []int{0}, 0)
	if err != nil || !strings.Contains(string(out), `{"id":"b","function":{"index":0,"name":"ls","arguments":{ "dir" : "." }}}`) {
		t.Fatalf("renumbered: %s %v", out, err)
	}
	out, err = RemoveOllamaCalls([]byte(ollamaTwoCalls), []int{1, 0}, -1)
	if err != nil || strings.Contains(string(out), "tool_calls") {
		t.Fatalf("all removed: %s %v", out, err)
	}
	var l OllamaLine
	if err := l.Decode(out); err != nil || !l.Model.Equal("m") || !l.HasMessage {
		t.Fatalf("all removed, decoded: %+v %v", l, err)
	}
	if _, err := RemoveOllamaCalls([]byte(ollamaTwoCalls), []int{2}, -1); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing call: %v", err)
	}
	if _, err := RemoveOllamaCalls([]byte(`{"message":{"Tool_Calls":[]}}`), nil, -1); !errors.Is(err, ErrKeySpelling) {
		t.Errorf("refused line: %v", err)
	}
}

func TestSetOllamaCallArguments(t *testing.T) {
	out, err := SetOllamaCallArguments([]byte(ollamaTwoCalls), 0, []byte(`{"cmd":"ls"}`))
	if err != nil || !strings.Contains(string(out), `"arguments":{"cmd":"ls"}`) || !strings.Contains(string(out), `{ "dir" : "." }`) {
		t.Fatalf("%s %v", out, err)
	}
	if _, err := SetOllamaCallArguments([]byte(ollamaTwoCalls), 0, []byte(`"ls"`)); !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("string arguments: %v", err)
	}
}

func TestAppendOllamaText(t *testing.T) {
	out, err := AppendOllamaText([]byte(`{"message":{"role":"assistant","content":"a\n"},"done":false}`), "[note]")
	if err != nil || string(out) != `{"message":{"role":"assistant","content":"a\n[note]"},"done":false}` {
		t.Fatalf("%s %v", out, err)
	}
	out, err = AppendOllamaText([]byte(`{"done":true}`), "x")
	var r ollamaOracleResponse
	if err != nil || json.Unmarshal(out, &r) != nil || r.Message.Content != "x" || r.Message.Role != "assistant" || !r.Done {
		t.Fatalf("no message: %s %v", out, err)
	}
}

func TestOllamaLines(t *testing.T) {
	for _, line := range [][]byte{
		OllamaTextLine("m", "", "blocked: \"sh\""),
		OllamaDoneLine("m", "2026-01-05T11:28:07Z", "stop"),
		OllamaErrorLine("hookgate: refused"),
	} {
		if line[len(line)-1] != '\n' {
			t.Fatalf("%q: no newline", line)
		}
		var l OllamaLine
		if err := l.Decode(line[:len(line)-1]); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	}
	var r ollamaOracleResponse
	if err := json.Unmarshal(OllamaTextLine("m", "", "hi"), &r); err != nil || r.Message.Content != "hi" || r.Done {
		t.Errorf("text line: %+v %v", r, err)
	}
	var ts struct {
		CreatedAt jsonTime `json:"created_at"`
	}
	if err := json.Unmarshal(OllamaTextLine("m", "", "hi"), &ts); err != nil {
		t.Errorf("created_at the Go client cannot read: %v", err)
	}
	r = ollamaOracleResponse{}
	if err := json.Unmarshal(OllamaDoneLine("m", "", "stop"), &r); err != nil || !r.Done || r.DoneReason != "stop" {
		t.Errorf("done line: %+v %v", r, err)
	}
	if got := string(OllamaErrorBody(`a "b"`)); got != `{"error":"a \"b\""}` {
		t.Errorf("error body %s", got)
	}
	r = ollamaOracleResponse{}
	if err := json.Unmarshal(OllamaAnswerBody("m", "", "no"), &r); err != nil || !r.Done || r.Message.Content != "no" {
		t.Errorf("answer body: %+v %v", r, err)
	}
}

// jsonTime decodes as the api's time.Time created_at does.
type jsonTime struct{ time.Time }
