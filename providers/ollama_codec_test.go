package providers

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestOllamaCodecStream runs the recorded stream through the codec's
// stream and frames, blocks its call with a note, and reads what the
// client gets with the Go client's reading: no call, the note, done.
func TestOllamaCodecStream(t *testing.T) {
	in := readFixture(t, "ollama/native-api-chat-stream-tool-call.ndjson")
	req, err := OllamaCodec.ParseRequest("/api/chat", "", []byte(`{"model":"gpt-oss:120b","messages":[{"role":"user","content":"weather?"}]}`))
	if err != nil || !req.Streamed() || req.Model() != "gpt-oss:120b" {
		t.Fatalf("request: %v", err)
	}
	for step := 1; step <= len(in); step += 97 {
		s := OllamaCodec.NewStream(req, 0)
		var out []byte
		var f CodecFrame
		calls, ends := 0, false
		for i := 0; i < len(in); i += step {
			s.Feed(in[i:min(i+step, len(in))])
			if i+step >= len(in) {
				s.End()
			}
			for {
				raw, payload, ok, err := s.Next()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				if err := OllamaCodec.DecodeFrame(payload, &f); err != nil {
					t.Fatal(err)
				}
				ends = ends || f.Ends
				if len(f.Calls) == 0 {
					out = s.Raw(out, raw, payload)
					continue
				}
				calls += len(f.Calls)
				if f.Calls[0].Name != "weather" || f.Calls[0].ID != "call_wi63dj03" || string(f.Calls[0].Args) != `{"location":"Florence, Italy"}` {
					t.Fatalf("call %+v", f.Calls[0])
				}
				edited, err := OllamaCodec.EditFrame(payload, &f, []CallEdit{{Call: 0, Remove: true}}, "[hookgate: weather blocked]")
				if err != nil {
					t.Fatal(err)
				}
				out = s.Frame(out, edited)
			}
		}
		if s.Truncated() || calls != 1 || !ends {
			t.Fatalf("step %d: truncated %v, %d calls, ends %v", step, s.Truncated(), calls, ends)
		}
		lines, truncated := scanLines(out)
		var text string
		for _, l := range lines {
			got, ok := oracleOllamaCalls(l)
			if !ok || len(got) != 0 {
				t.Fatalf("client line %s: calls %v, ok %v", l, got, ok)
			}
			var v OllamaLine
			if err := v.Decode(l); err != nil {
				t.Fatal(err)
			}
			text += v.Content.Text()
		}
		if truncated || len(lines) != 14 || text != "[hookgate: weather blocked]" {
			t.Fatalf("step %d: %d lines, text %q", step, len(lines), text)
		}
	}
}

func TestOllamaCodecFrames(t *testing.T) {
	var f CodecFrame
	if err := OllamaCodec.DecodeFrame([]byte(`{"error":"boom","message":{"tool_calls":[{"function":{"name":"sh"}}]}}`), &f); !errors.Is(err, ErrUnjudgedCall) {
		t.Errorf("error with a call: %v", err)
	}
	if err := OllamaCodec.DecodeFrame([]byte(`{"error":"model not found"}`), &f); err != nil || !f.Error || !f.Ends {
		t.Errorf("error line: %+v %v", f, err)
	}
	line := []byte(`{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"sh","arguments":{"cmd":"rm -rf /"}}}]},"done":false}`)
	if err := OllamaCodec.DecodeFrame(line, &f); err != nil || len(f.Calls) != 1 || f.Meaningful || f.Ends {
		t.Fatalf("call line: %+v %v", f, err)
	}
	out, err := OllamaCodec.EditFrame(line, &f, []CallEdit{{Call: 0, Args: []byte(`{"cmd":"ls"}`)}}, "")
	if err != nil || !bytes.Contains(out, []byte(`"arguments":{"cmd":"ls"}`)) {
		t.Fatalf("rewrite: %s %v", out, err)
	}
	s := OllamaCodec.NewStream(nil, 0)
	s.Feed([]byte("{\"done\":false}\n{\"done\":tr"))
	s.End()
	for {
		_, _, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
	}
	if !s.Truncated() {
		t.Error("a stream ending inside a line is not truncated")
	}
	if got := string(s.ErrorFrame(nil, "stream_truncated", "cut")); got != `{"error":"stream_truncated: cut"}`+"\n" {
		t.Errorf("error frame %q", got)
	}
	if s.Heartbeat() != nil {
		t.Error("a heartbeat the Go client fails on")
	}
	if got := string(OllamaFormat.Error(403, "", "blocked", "no")); got != `{"error":"blocked: no"}` {
		t.Errorf("error shape %s", got)
	}
	if OllamaFormat.Auth.Value("k") != "Bearer k" || ProviderFormat("ollama") != OllamaFormat {
		t.Error("ollama format registration")
	}
}

func TestOllamaCodecRequest(t *testing.T) {
	req, err := OllamaCodec.ParseRequest("/api/chat", "", []byte(ollamaChatRequest))
	if err != nil {
		t.Fatal(err)
	}
	turn := req.Turn()
	if !turn.HasAssistant || len(turn.Users) != 2 || turn.Users[1].Pos != 5 || turn.Users[1].Text != "newest" {
		t.Errorf("turn %+v", turn)
	}
	if len(turn.Results) != 2 || turn.Results[0].CallID != "messages.2.tool_calls.0" || turn.Results[1].CallID != "c2" {
		t.Fatalf("results %+v", turn.Results)
	}
	if c := turn.Calls["messages.2.tool_calls.0"]; c.Name != "sh" || c.Arguments != `{"cmd":"ls"}` {
		t.Errorf("calls %+v", turn.Calls)
	}
	out, err := req.ReplaceToolResult([]byte(ollamaChatRequest), "c2", "[redacted]")
	if err != nil || !strings.Contains(string(out), `"content":"[redacted]","tool_call_id":"c2"`) {
		t.Errorf("replace: %s %v", out, err)
	}
	if _, err := req.ReplaceToolResult([]byte(ollamaChatRequest), "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("replace unknown: %v", err)
	}
	ct, body := req.Answer("refused")
	var v OllamaLine
	if ct != "application/json" || v.Decode(body) != nil || !v.Done || !v.Content.Equal("refused") {
		t.Errorf("answer %s %s", ct, body)
	}
	sreq, _ := OllamaCodec.ParseRequest("/api/chat", "", []byte(`{"model":"m","messages":[]}`))
	ct, body = sreq.Answer("refused")
	lines, truncated := scanLines(body)
	if ct != "application/x-ndjson" || truncated || len(lines) != 2 {
		t.Fatalf("streamed answer %s %q", ct, body)
	}
	if v.Decode(lines[1]) != nil || !v.Done {
		t.Errorf("streamed answer's last line %s", lines[1])
	}
}
