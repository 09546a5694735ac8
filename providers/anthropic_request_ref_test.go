package providers

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// The gjson-based view ParseMessagesRequest replaced, kept as the
// reference the one-pass view must agree with exactly (values, errors,
// oddities).

// refParseMessagesRequest is the former ParseMessagesRequest.
func refParseMessagesRequest(body []byte) (*MessagesRequest, error) {
	const what = "messages request"
	root, err := parseBody(body, what)
	if err != nil {
		return nil, err
	}
	msgs := root.Get("messages")
	if msgs.Exists() && !msgs.IsArray() {
		return nil, fmt.Errorf("%s: messages is %s, not an array: %w", what, msgs.Type, ErrInvalidJSON)
	}
	sys := root.Get("system")
	if sys.Exists() && sys.Type != gjson.Null && sys.Type != gjson.String && !sys.IsArray() {
		return nil, fmt.Errorf("%s: system is neither a string nor a list of blocks: %w", what, ErrInvalidJSON)
	}
	r := &MessagesRequest{
		Model:  root.Get("model").String(),
		Stream: root.Get("stream").Bool(),
		UserID: root.Get("metadata.user_id").String(),
	}
	r.System, r.SystemState = refBlocksText(sys, "\n\n")
	i := 0
	msgs.ForEach(func(_, m gjson.Result) bool {
		msg := MessagesMessage{Role: m.Get("role").String()}
		content := m.Get("content")
		msg.Text, msg.ContentState = refBlocksText(content, "\n")
		msg.HasText = msg.ContentState == FieldString || msg.ContentState == FieldEmpty
		if content.IsArray() {
			content.ForEach(func(_, b gjson.Result) bool {
				msg.Blocks++
				switch b.Get("type").String() {
				case "text":
					msg.HasText = true
				case "tool_use":
					msg.ToolUses = append(msg.ToolUses, MessagesToolUse{ID: b.Get("id").String(), Name: b.Get("name").String(), Input: rawOrEmpty(b.Get("input"))})
				case "tool_result":
					text, _ := refBlocksText(b.Get("content"), "\n")
					r.ToolResults = append(r.ToolResults, MessagesToolResult{ToolUseID: b.Get("tool_use_id").String(), Content: text, IsError: b.Get("is_error").Bool(), Message: i})
				}
				return true
			})
		}
		if msg.Role == "assistant" {
			r.HasAssistant = true
		}
		r.Messages = append(r.Messages, msg)
		i++
		return true
	})
	root.Get("tools").ForEach(func(_, t gjson.Result) bool {
		if n := t.Get("name"); n.Exists() {
			r.ToolNames = append(r.ToolNames, n.String())
		}
		return true
	})
	return r, nil
}

// refBlocksText is the former blocksText: it reads a member that is a string or a list of content blocks:
// the string, or the text of the "text" blocks joined with sep.
func refBlocksText(v gjson.Result, sep string) (string, FieldState) {
	switch {
	case !v.Exists():
		return "", FieldAbsent
	case v.Type == gjson.Null:
		return "", FieldNull
	case v.Type == gjson.String && v.Str == "":
		return "", FieldEmpty
	case v.Type == gjson.String:
		return v.Str, FieldString
	case v.IsArray():
		var parts []string
		v.ForEach(func(_, b gjson.Result) bool {
			if t := b.Get("text"); t.Type == gjson.String && b.Get("type").Str == "text" {
				parts = append(parts, t.Str)
			}
			return true
		})
		return strings.Join(parts, sep), FieldOther
	default:
		return "", FieldOther
	}
}

// messagesRequestSeeds are the recorded plain answers sent back as the
// history of a request (their tool_use blocks answered by tool_result
// blocks), the package's sample requests, and a few odd ones.
func messagesRequestSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	for _, fx := range fixtures.List(tb, fixtures.APIAnthropic, fixtures.KindJSON) {
		content := gjson.GetBytes(fx.Read(tb), "content")
		if !content.IsArray() {
			continue
		}
		var b strings.Builder
		b.WriteString(`{"model":"claude","max_tokens":64,"stream":true,"metadata":{"user_id":"u1"},"system":[{"type":"text","text":"be careful","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":`)
		b.WriteString(content.Raw)
		b.WriteString(`},{"role":"user","content":[`)
		content.ForEach(func(_, blk gjson.Result) bool {
			if blk.Get("type").Str == "tool_use" {
				b.WriteString(`{"type":"tool_result","tool_use_id":` + strconv.Quote(blk.Get("id").Str) + `,"content":[{"type":"text","text":"ok"}],"is_error":false},`)
			}
			return true
		})
		b.WriteString(`{"type":"text","text":"next"}]}],"tools":[{"name":"Bash","input_schema":{"type":"object"}}]}`)
		out = append(out, []byte(b.String()))
	}
	for _, s := range append([]string{claudeTurn, benchMessagesRequest}, oddMessagesRequestSeeds...) {
		out = append(out, []byte(s))
	}
	return out
}

// oddMessagesRequestSeeds are requests with the members' unusual shapes.
var oddMessagesRequestSeeds = []string{
	`{"model":1.50,"stream":"true","metadata":{"user_id":7},"system":"","messages":[{"role":"user","content":""}]}`,
	`{"model":true,"stream":1,"metadata":[{"user_id":"x"}],"system":null,"messages":[{"role":"user","content":null},{"content":{"type":"text","text":"x"}},3,"s",null,[]]}`,
	`{"system":[{"type":"text","text":1},{"text":"no type"},"bare",{"type":"text","text":"a"},{"type":"t\u0065xt","text":"b\n"}],"messages":[]}`,
	`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":1,"name":null,"input":null},{"type":"tool_use"},{"type":"tool_use","input":"s"},"text",{"type":1},{"type":"text"},{"type":"text","text":null}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":"s","is_error":"true"},{"type":"tool_result","content":[{"type":"text","text":"a"},{"type":"image"}]},{"type":"tool_result","content":{"a":1},"is_error":1}]}]}`,
	`{"\u006d\u0065\u0073\u0073\u0061\u0067\u0065\u0073":[{"r\u006fle":"user","content":[{"type":"text","text":"\ud800\u0041 \ud83d\ude00"}]}]}`,
	`{"tools":null}`, `{"tools":"x"}`, `{"tools":{"a":{"name":"n"},"b":{"name":null}}}`, `{"tools":[{"name":1},{},[],{"name":"Read"}]}`,
	`{"messages":{}}`, `{"messages":3}`, `{"messages":null}`, `{"system":1}`, `{"system":{}}`, `{"system":true,"messages":"x"}`,
	` {"messages":[ ] , "metadata":null} `,
}

func FuzzParseMessagesRequestMatchesReference(f *testing.F) {
	for _, s := range messagesRequestSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkMessagesRequest(t, body)
	})
}

// TestMessagesRequestMatchesReference runs the seeds without fuzzing.
func TestMessagesRequestMatchesReference(t *testing.T) {
	for _, body := range messagesRequestSeeds(t) {
		checkMessagesRequest(t, body)
	}
}

func checkMessagesRequest(t *testing.T, body []byte) {
	t.Helper()
	got, err := ParseMessagesRequest(body)
	want, wantErr := refParseMessagesRequest(body)
	if (err == nil) != (wantErr == nil) || errors.Is(err, ErrDuplicateKey) != errors.Is(wantErr, ErrDuplicateKey) ||
		(err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%q: error %v, reference %v", body, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", body, got, want)
	}
}

// benchMessagesRequest is the representative agent request (see
// benchChatRequest) as a Messages request.
const benchMessagesRequest = `{"model":"claude-sonnet-4-5","max_tokens":1024,"temperature":0.2,` +
	`"system":"You are a coding agent working in the repository at /home/agent/project. Use the tools to inspect files and run commands. Prefer small, reversible steps; explain what you are about to do before calling a tool; never run destructive commands without being asked.",` +
	`"messages":[` +
	`{"role":"user","content":"The build fails on CI with a missing module error. Find out why and fix it."},` +
	`{"role":"assistant","content":[{"type":"text","text":"I will look at the module file first."},{"type":"tool_use","id":"toolu_hist_0","name":"read_file","input":{"path":"go.mod"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_hist_0","content":"module github.com/example/project\n\ngo 1.22\n\nrequire (\n\tgithub.com/example/lib v1.4.0\n)\n"},{"type":"text","text":"Also check the vendor directory and list what is there."}]}],` +
	`"tools":[` +
	`{"name":"exec","description":"Run a shell command in the project directory and return its output.","input_schema":{"type":"object","properties":{"command":{"type":"string","description":"The command line to run."},"cwd":{"type":"string"},"timeout_ms":{"type":"integer"}},"required":["command"]}},` +
	`{"name":"read_file","description":"Read a file of the project.","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}`

// BenchmarkParseMessagesRequest reads the representative request into its
// view, and with the former gjson-based view for comparison.
func BenchmarkParseMessagesRequest(b *testing.B) {
	benchParse(b, []byte(benchMessagesRequest), ParseMessagesRequest, refParseMessagesRequest)
}
