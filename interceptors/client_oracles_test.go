package interceptors

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicsse "github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
	openaisse "github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// clientReading is what a real SDK read out of the bytes hookgate wrote: every
// tool call in any place the SDK shows one ("name input"), and how the
// stream ended.
type clientReading struct {
	Calls []string
	Err   error // nil when the SDK saw the stream end cleanly
}

// reads reports whether any call the client read contains marker.
func (r clientReading) reads(marker string) bool {
	for _, c := range r.Calls {
		if strings.Contains(c, marker) {
			return true
		}
	}
	return false
}

func sseResponse(out []byte) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(out))}
}

// anthropicClientReads hands out to anthropic-sdk-go v2: its SSE decoder and
// stream, and Message.Accumulate. The calls are the tool_use blocks of the
// accumulated message and of every content_block_start, and each block's
// input_json_delta fragments joined (what @anthropic-ai/sdk's MessageStream
// builds a tool_use's input from).
func anthropicClientReads(t *testing.T, out []byte) clientReading {
	t.Helper()
	stream := anthropicsse.NewStream[anthropic.MessageStreamEventUnion](anthropicsse.NewDecoder(sseResponse(out)), nil)
	defer stream.Close()
	var r clientReading
	var msg anthropic.Message
	fragments := map[int64]string{}
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				r.Calls = append(r.Calls, ev.ContentBlock.Name+" "+ev.ContentBlock.RawJSON())
			}
		case "content_block_delta":
			if ev.Delta.Type == "input_json_delta" {
				fragments[ev.Index] += ev.Delta.PartialJSON
			}
		}
		if err := msg.Accumulate(ev); err != nil {
			r.Err = err
			break
		}
	}
	if r.Err == nil {
		r.Err = stream.Err()
	}
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			r.Calls = append(r.Calls, b.Name+" "+string(b.Input))
		}
	}
	for i, f := range fragments {
		r.Calls = append(r.Calls, "fragments of block "+strconv.FormatInt(i, 10)+" "+f)
	}
	return r
}

// responsesClientReads hands out to openai-go v3's Responses stream. The
// calls are every call item of an item event, every call item in a response
// snapshot of any event (openai-node's finalResponse() is the last snapshot),
// the arguments and input streamed per item, and the .done events' inputs.
func responsesClientReads(t *testing.T, out []byte) clientReading {
	t.Helper()
	stream := openaisse.NewStream[responses.ResponseStreamEventUnion](openaisse.NewDecoder(sseResponse(out)), nil)
	defer stream.Close()
	var r clientReading
	streamed := map[string]string{}
	item := func(it responses.ResponseOutputItemUnion) {
		switch it.Type {
		case "function_call":
			c := it.AsFunctionCall()
			r.Calls = append(r.Calls, c.Name+" "+c.Arguments)
		case "custom_tool_call":
			c := it.AsCustomToolCall()
			r.Calls = append(r.Calls, c.Name+" "+c.Input)
		case "message", "reasoning", "":
		default:
			r.Calls = append(r.Calls, it.Type+" "+it.RawJSON())
		}
	}
	for stream.Next() {
		ev := stream.Current()
		if ev.JSON.Item.Valid() {
			item(ev.Item)
		}
		for _, it := range ev.Response.Output {
			item(it)
		}
		switch ev.Type {
		case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			streamed[ev.ItemID] += ev.Delta
		case "response.function_call_arguments.done":
			r.Calls = append(r.Calls, "done "+ev.Arguments)
		case "response.custom_tool_call_input.done":
			r.Calls = append(r.Calls, "done "+ev.Input)
		}
	}
	r.Err = stream.Err()
	for id, s := range streamed {
		r.Calls = append(r.Calls, "streamed "+id+" "+s)
	}
	return r
}
