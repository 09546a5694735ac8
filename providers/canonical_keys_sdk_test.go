package providers

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	goopenai "github.com/sashabaranov/go-openai"
)

// sdkResponseTypes are the types the three SDKs decode answers into: chat
// chunks and completions, Responses events and responses, Messages events
// and messages.
var sdkResponseTypes = []any{
	goopenai.ChatCompletionStreamResponse{},
	goopenai.ChatCompletionResponse{},
	openai.ChatCompletionChunk{},
	openai.ChatCompletion{},
	responses.ResponseStreamEventUnion{},
	responses.Response{},
	anthropic.MessageStreamEventUnion{},
	anthropic.Message{},
}

// sdkMemberNames walks the SDK types and returns every JSON member name a
// struct field is matched to.
func sdkMemberNames() []string {
	seen := map[reflect.Type]bool{}
	names := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			// Both SDKs tag every member they read; untagged fields and
			// "-" are Go-side state (openai-go's JSON metadata, go-openai's
			// MultiContent, filled by a custom decoder from "content").
			if tag == "" || tag == "-" {
				continue
			}
			if name == "" { // ",inline": the union's members are the parent's
				walk(f.Type)
				continue
			}
			names[name] = true
			walk(f.Type)
		}
	}
	for _, v := range sdkResponseTypes {
		walk(reflect.TypeOf(v))
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func TestDumpSDKMembers(t *testing.T) {
	for _, n := range sdkMemberNames() {
		t.Log(n)
	}
}
