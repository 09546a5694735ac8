package providers

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
)

// The spellings of a blocked call that Go's encoding/json (go-openai, and
// any agent decoding into its own structs) reads as the member, while gjson
// reads the exact first key.
const (
	callTC       = `[{"index":0,"id":"c1","type":"function","function":{"name":"exec","arguments":"{\"cmd\":\"rm -rf /\"}"}}]`
	chunkTCCase  = `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"Tool_Calls":` + callTC + `}}]}`
	chunkChEsc   = `{"id":"x","object":"chat.completion.chunk","\u0043hoices":[{"index":0,"delta":{"tool_calls":` + callTC + `}}]}`
	chunkChLongS = `{"id":"x","object":"chat.completion.chunk","choiceſ":[{"index":0,"delta":{"tool_calls":` + callTC + `}}]}`
	chunkNameEsc = `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"ls","N\u0061me":"exec","arguments":"{}"}}]}}]}`
	chunkArgsS   = `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"exec","arguments":"{}","argumentſ":"{\"cmd\":\"rm -rf /\"}"}}]}}]}`
	chunkKelvin  = `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[{"to\u212aen":"a","logprob":0,"top_logprobs":[]}]}}]}`
)

// goOpenAIStreamCall is what go-openai reads out of a chunk: the first
// call's name and arguments.
func goOpenAIStreamCall(t *testing.T, data string) (string, string) {
	t.Helper()
	var r goopenai.ChatCompletionStreamResponse
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		t.Fatalf("go-openai: %v", err)
	}
	if len(r.Choices) == 0 || len(r.Choices[0].Delta.ToolCalls) == 0 {
		return "", ""
	}
	f := r.Choices[0].Delta.ToolCalls[0].Function
	return f.Name, f.Arguments
}

func TestChatChunkKeySpellingsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		sdkName    string // what go-openai reads as the call's name ("" for no check)
		sdkArgs    string
	}{
		{"Tool_Calls", chunkTCCase, "exec", `{"cmd":"rm -rf /"}`},
		{`\u0043hoices`, chunkChEsc, "exec", `{"cmd":"rm -rf /"}`},
		{"choiceſ", chunkChLongS, "exec", `{"cmd":"rm -rf /"}`},
		{`N\u0061me`, chunkNameEsc, "exec", "{}"},
		{"argumentſ", chunkArgsS, "exec", `{"cmd":"rm -rf /"}`},
		{"Kelvin sign", chunkKelvin, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sdkName != "" {
				name, args := goOpenAIStreamCall(t, tc.data)
				if name != tc.sdkName || args != tc.sdkArgs {
					t.Fatalf("oracle: go-openai reads %q %q, want %q %q", name, args, tc.sdkName, tc.sdkArgs)
				}
			}
			var c ChatChunk
			err := c.Decode([]byte(tc.data))
			if !errors.Is(err, ErrKeySpelling) || !errors.Is(err, ErrInvalidJSON) || !IsAmbiguousKey(err) {
				t.Fatalf("Decode = %v, want ErrKeySpelling", err)
			}
			if len(c.Choices) != 0 {
				t.Fatalf("view not empty after refusal: %+v", c.Choices)
			}
		})
	}
}

func TestChatResponseKeySpellingsRefused(t *testing.T) {
	msg := func(inner string) string {
		return `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,` + inner + `},"finish_reason":"tool_calls"}]}`
	}
	call := `[{"id":"c1","type":"function","function":{"name":"exec","arguments":"{\"cmd\":\"rm -rf /\"}"}}]`
	for _, tc := range []struct{ name, body string }{
		{"Tool_Calls", msg(`"Tool_Calls":` + call)},
		{`\u0043hoices`, strings.Replace(msg(`"tool_calls":`+call), `"choices"`, `"\u0043hoices"`, 1)},
		{"choiceſ", strings.Replace(msg(`"tool_calls":`+call), `"choices"`, `"choiceſ"`, 1)},
		{`N\u0061me`, msg(`"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","N\u0061me":"exec","arguments":"{}"}}]`)},
		{"argumentſ", msg(`"tool_calls":[{"id":"c1","type":"function","function":{"name":"exec","arguments":"{}","argumentſ":"{\"cmd\":\"rm -rf /\"}"}}]`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r goopenai.ChatCompletionResponse
			if err := json.Unmarshal([]byte(tc.body), &r); err != nil {
				t.Fatalf("go-openai: %v", err)
			}
			if len(r.Choices) == 0 || len(r.Choices[0].Message.ToolCalls) == 0 || r.Choices[0].Message.ToolCalls[0].Function.Name != "exec" &&
				!strings.Contains(r.Choices[0].Message.ToolCalls[0].Function.Arguments, "rm") {
				t.Fatalf("oracle: go-openai does not read the call: %+v", r.Choices)
			}
			if _, err := ParseChatResponse([]byte(tc.body)); !errors.Is(err, ErrKeySpelling) {
				t.Fatalf("ParseChatResponse = %v, want ErrKeySpelling", err)
			}
		})
	}
}

// wireMessagesDelta is a content_block_delta as a client decoding with
// encoding/json (or JSON.parse: the last key wins) reads it.
// anthropic-sdk-go and openai-go read the first exact key (their decoder
// is gjson-based), as hookgate does; go-openai and the JavaScript SDKs
// do not, so these oracles use encoding/json on the wire shape.
type wireMessagesDelta struct {
	Type  string `json:"type"`
	Delta struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
}

func TestMessagesEventKeySpellingsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       error
	}{
		{"repeated type in input_json_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"","type":"input_json_delta","partial_json":"{\"command\":\"rm -rf /\"}"}}`, ErrDuplicateKey},
		{"repeated partial_json", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}","partial_json":"{\"command\":\"rm -rf /\"}"}}`, ErrDuplicateKey},
		{"Partial_JSON", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}","Partial_JSON":"{\"command\":\"rm -rf /\"}"}}`, ErrKeySpelling},
		{`\u0074ype`, `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","\u0074ype":"input_json_delta","partial_json":"{\"command\":\"rm -rf /\"}"}}`, ErrKeySpelling},
		{"partial_jſon", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}","partial_jſon":"{\"command\":\"rm -rf /\"}"}}`, ErrKeySpelling},
		{"nested repeat", `{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1,"input_tokens":2}}}`, ErrDuplicateKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w wireMessagesDelta
			if err := json.Unmarshal([]byte(tc.data), &w); err != nil {
				t.Fatal(err)
			}
			if w.Type == "content_block_delta" && (w.Delta.Type != "input_json_delta" || !strings.Contains(w.Delta.PartialJSON, "rm -rf")) {
				t.Fatalf("oracle: encoding/json reads %+v", w.Delta)
			}
			var e MessagesEvent
			err := e.Decode([]byte(tc.data))
			if !errors.Is(err, tc.want) || !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("Decode = %v, want %v", err, tc.want)
			}
		})
	}
}

// wireResponsesItem is an output_item event as encoding/json reads it.
type wireResponsesItem struct {
	Item struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"item"`
}

func TestResponsesEventKeySpellingsRefused(t *testing.T) {
	item := func(inner string) string {
		return `{"type":"response.output_item.added","sequence_number":3,"output_index":0,"item":{"type":"function_call","id":"fc","call_id":"c1",` + inner + `}}`
	}
	for _, tc := range []struct {
		name, data string
		want       error
	}{
		{"Name", item(`"name":"ls","Name":"exec","arguments":""`), ErrKeySpelling},
		{`N\u0061me`, item(`"name":"ls","N\u0061me":"exec","arguments":""`), ErrKeySpelling},
		{"argumentſ", item(`"name":"exec","arguments":"{}","argumentſ":"{\"cmd\":\"rm -rf /\"}"`), ErrKeySpelling},
		{"repeated name", item(`"name":"ls","name":"exec","arguments":""`), ErrDuplicateKey},
		{"Item", `{"type":"response.output_item.added","output_index":0,"Item":{"type":"function_call","id":"fc","call_id":"c1","name":"exec","arguments":""}}`, ErrKeySpelling},
		{"repeated delta", `{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":0,"delta":"{}","delta":"rm"}`, ErrDuplicateKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w wireResponsesItem
			if err := json.Unmarshal([]byte(tc.data), &w); err != nil {
				t.Fatal(err)
			}
			if w.Item.Type != "" && w.Item.Name != "exec" && !strings.Contains(w.Item.Arguments, "rm") {
				t.Fatalf("oracle: encoding/json reads %+v", w.Item)
			}
			var e ResponsesEvent
			if err := e.Decode([]byte(tc.data)); !errors.Is(err, tc.want) || !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("Decode = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPlainBodiesKeySpellingsRefused(t *testing.T) {
	msgs := `{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"ls","Name":"exec","input":{}}],"stop_reason":"tool_use"}`
	if _, err := ParseMessagesResponse([]byte(msgs)); !errors.Is(err, ErrKeySpelling) {
		t.Errorf("ParseMessagesResponse = %v, want ErrKeySpelling", err)
	}
	resp := `{"id":"r","object":"response","output":[{"type":"function_call","id":"fc","call_id":"c","name":"ls","argumentſ":"rm","arguments":"{}"}]}`
	if _, err := ParseResponsesResponse([]byte(resp)); !errors.Is(err, ErrKeySpelling) {
		t.Errorf("ParseResponsesResponse = %v, want ErrKeySpelling", err)
	}
}

func TestCanonicalKeysAccepted(t *testing.T) {
	for _, in := range []string{
		`{"choices":[{"index":0,"delta":{"content":"x"}}],"usage":null}`,
		// Keys that fold to no member, upper case or not.
		`{"choices":[],"X-Trace":"a","Ünicode":1,"content_filter_results":{"hate":{"filtered":false}}}`,
		// Free-form members: the tool's own keys, JSON schemas, metadata.
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"x","input":{"Path":"a","ID":1}}}`,
		`{"type":"response.completed","response":{"id":"r","metadata":{"Name":"a"},"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"Type":{"type":"string"}}}}]}}`,
	} {
		if err := checkCanonical([]byte(in)); err != nil {
			t.Errorf("checkCanonical(%s) = %v", in, err)
		}
	}
	// Free-form members still refuse repeats, and only their exact
	// spelling is free-form.
	for _, in := range []string{
		`{"content_block":{"input":{"Path":"a","Path":"b"}}}`,
		`{"content_block":{"Input":{"Path":"a"}}}`,
		`{"content_block":{"\u0069nput":{"Path":"a"}}}`,
	} {
		if err := checkCanonical([]byte(in)); !IsAmbiguousKey(err) {
			t.Errorf("checkCanonical(%s) = %v, want a refusal", in, err)
		}
	}
}

// TestMemberNamesCoverSDKs keeps memberNames the set of every member an
// SDK struct reads, and each an [a-z0-9_] spelling (which plainKey's fast
// path relies on).
func TestMemberNamesCoverSDKs(t *testing.T) {
	for _, n := range sdkMemberNames() {
		if _, ok := memberIndex[n]; !ok {
			t.Errorf("SDK member %q missing from memberNames", n)
		}
	}
	for _, n := range memberNames {
		if !plainKey([]byte(n)) {
			t.Errorf("member %q is not [a-z0-9_]", n)
		}
	}
}

func FuzzCheckCanonicalMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{chunkTCCase, chunkChEsc, chunkChLongS, chunkNameEsc, chunkArgsS, chunkKelvin,
		`{"a":1,"\u0061":2}`, `{"content_block":{"input":{"Path":"a"}}}`, `{"x":{"TYPE":1}}`, `{"metadata":{"a":[{"Id":1}]}}`,
		`{"choices":[{"delta":{"content":"x"}}]}`, `[{"id":1},{"ID":2}]`, `{"\u017fchema":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := checkCanonical(raw)
		if errors.Is(err, errTooDeep) {
			return
		}
		want, ok := refCanonical(raw)
		if !ok {
			return // encoding/json does not read it; validation has its own fuzzer
		}
		if (err == nil) != (want == nil) || err != nil && !IsAmbiguousKey(err) {
			t.Fatalf("%q: gate %v, encoding/json reference %v", raw, err, want)
		}
	})
}
