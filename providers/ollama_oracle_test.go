package providers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The oracle is encoding/json over structs mirroring the response types of
// Ollama's Go api package (github.com/ollama/ollama/api: ChatResponse,
// Message, ToolCall, ToolCallFunction, Metrics): the module is heavy and
// not in go.mod, and encoding/json's case-insensitive matching is what
// its client does. Arguments decode into a map, as the api's ordered map
// does.

type ollamaOracleResponse struct {
	Model      string              `json:"model"`
	CreatedAt  json.RawMessage     `json:"created_at"`
	Message    ollamaOracleMessage `json:"message"`
	Done       bool                `json:"done"`
	DoneReason string              `json:"done_reason,omitempty"`
	Error      string              `json:"error,omitempty"`

	TotalDuration      int64 `json:"total_duration,omitempty"`
	LoadDuration       int64 `json:"load_duration,omitempty"`
	PromptEvalCount    int   `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64 `json:"prompt_eval_duration,omitempty"`
	EvalCount          int   `json:"eval_count,omitempty"`
	EvalDuration       int64 `json:"eval_duration,omitempty"`
}

type ollamaOracleMessage struct {
	Role       string             `json:"role"`
	Content    string             `json:"content"`
	Thinking   string             `json:"thinking,omitempty"`
	ToolCalls  []ollamaOracleCall `json:"tool_calls,omitempty"`
	ToolName   string             `json:"tool_name,omitempty"`
	ToolCallID string             `json:"tool_call_id,omitempty"`
}

type ollamaOracleCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int            `json:"index"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"function"`
}

// TestOllamaMemberNamesCoverOracle: every JSON name of the oracle's types
// is an Ollama member the gate guards, and no two members fold to one.
func TestOllamaMemberNamesCoverOracle(t *testing.T) {
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct {
			return
		}
		for i := range ty.NumField() {
			fl := ty.Field(i)
			name := strings.Split(fl.Tag.Get("json"), ",")[0]
			if _, ok := ollamaGate.members[name]; !ok {
				t.Errorf("%s.%s: member %q missing from ollamaMemberNames", ty.Name(), fl.Name, name)
			}
			walk(fl.Type)
		}
	}
	walk(reflect.TypeOf(ollamaOracleResponse{}))
	if len(ollamaGate.folded) != len(ollamaGate.members) {
		t.Errorf("%d members fold to %d names", len(ollamaGate.members), len(ollamaGate.folded))
	}
}

// ollamaSeen is one call as a reader found it.
type ollamaSeen struct {
	ID, Name string
	Args     map[string]any
}

// oracleOllamaCalls reads one line as the Go client does; ok is false when
// it fails on the line (or stops at its error).
func oracleOllamaCalls(line []byte) (calls []ollamaSeen, ok bool) {
	var er struct {
		Error string `json:"error,omitempty"`
	}
	if json.Unmarshal(line, &er) != nil || er.Error != "" {
		return nil, false
	}
	var r ollamaOracleResponse
	if json.Unmarshal(line, &r) != nil {
		return nil, false
	}
	for _, c := range r.Message.ToolCalls {
		calls = append(calls, ollamaSeen{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
	}
	return calls, true
}

// viewOllamaCalls reads one line with hookgate's view.
func viewOllamaCalls(line []byte) ([]ollamaSeen, error) {
	var l OllamaLine
	if err := l.Decode(line); err != nil {
		return nil, err
	}
	var calls []ollamaSeen
	for _, c := range l.Calls {
		s := ollamaSeen{ID: c.ID.Text(), Name: c.Name.Text()}
		if c.Arguments.Set() {
			if err := json.Unmarshal(c.Arguments.Raw, &s.Args); err != nil {
				return nil, err
			}
		}
		calls = append(calls, s)
	}
	return calls, nil
}

// FuzzOllamaLine: any call the Go client's reading (encoding/json, case
// insensitive) finds in a line, the view reports alike, or the view
// refuses the line.
func FuzzOllamaLine(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"index":0,"name":"sh","arguments":{"cmd":"ls"}}}]},"done":false}`,
		`{"message":{"Tool_Calls":[{"function":{"name":"sh","arguments":{}}}]}}`,
		`{"message":{"tool_calls":[{"function":{"name":"a"}},{"Function":{"name":"b"}}]}}`,
		`{"Message":{"tool_calls":[{"function":{"name":"sh"}}]}}`,
		`{"message":{"tool_calls":[{"function":{"name":"sh","arguments":"{\"a\":1}"}}]}}`,
		`{"message":{"tool_calls":[{"function":{"name":"sh","arguments":{"a":1,"A":2}}}]}}`,
		`{"message":{"tool_calls":[null]}}`,
		`{"error":"boom","message":{"tool_calls":[{"function":{"name":"sh"}}]}}`,
		`{"message":{"content":"hi"},"done":true,"done_reason":"stop"}`,
		`{"message":{"tool_calls":[{"function":{"name":"s\u0068","arguments":{"\u0061":1}}}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		want, ok := oracleOllamaCalls(line)
		got, err := viewOllamaCalls(line)
		if err != nil || !ok {
			return // the view refuses, or the Go client reads nothing
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: view %v, encoding/json %v", line, got, want)
		}
	})
}

// scanLines splits a stream as the Go client's bufio.Scanner does, less
// the blank lines it fails on; truncated reports a last line without its
// '\n'.
func scanLines(in []byte) (lines [][]byte, truncated bool) {
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !blankLine(sc.Bytes()) {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
	}
	if i := bytes.LastIndexByte(in, '\n'); !blankLine(in[i+1:]) {
		truncated = true
	}
	return lines, truncated
}
