package interceptors

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/providers"
)

// The codec machine over a PieceCodec whose end frame repeats the whole
// answer (providers.ResponsesCodec, which the Responses route streams through): the
// recorded Responses streams, read by the clients' accumulators
// (viewOf).

func relayCodecSSE(t *testing.T, opts Options, stream string) (string, error) {
	t.Helper()
	c := NewCodec(opts, providers.ResponsesCodec)
	x, err := c.Begin(context.Background(), &Request{Route: "/v1/responses", Provider: "openai", Body: []byte(streamRequest)})
	if err != nil {
		t.Fatal(err)
	}
	var out bufferSink
	err = x.RelayStream(context.Background(), strings.NewReader(stream), &out)
	return out.String(), err
}

func TestCodecSnapshotStreamsAllowedPassByteForByte(t *testing.T) {
	for name, stream := range responsesStreams(t) {
		for _, opts := range []Options{{}, {Engine: engineFor(t, allowAllHook)}} {
			out, err := relayCodecSSE(t, opts, stream)
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
			if out != stream {
				t.Fatalf("%s: the stream changed:\n%s", name, out)
			}
		}
	}
}

func TestCodecSnapshotStreamsBlocked(t *testing.T) {
	opts := Options{Engine: engineFor(t, blockAllHook)}
	for name, stream := range responsesStreams(t) {
		direct := viewOf(t, stream)
		out, err := relayCodecSSE(t, opts, stream)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		v := viewOf(t, out)
		if len(v.Calls) != 0 {
			t.Errorf("%s: blocked calls reached the client: %+v", name, v.Calls)
		}
		for _, c := range direct.Calls {
			if note := "[hookgate] tool call " + c.Name + " blocked by block-all: no tools today"; !strings.Contains(v.Text, note) {
				t.Errorf("%s: the text lacks %q: %q", name, note, v.Text)
			}
		}
		if !contiguous(v.Seqs) {
			t.Errorf("%s: sequence numbers not contiguous: %v", name, v.Seqs)
		}
		if v.Terminal != direct.Terminal || len(v.Errors) != len(direct.Errors) {
			t.Errorf("%s: ended with %s %v, the recording with %s %v", name, v.Terminal, v.Errors, direct.Terminal, direct.Errors)
		}
		final := v.Final.Get("output").Array()
		for _, o := range final {
			if typ := o.Get("type").Str; typ == "function_call" || typ == "custom_tool_call" {
				t.Errorf("%s: the final output still lists a blocked call: %s", name, o.Raw)
			}
		}
		if len(direct.Calls) > 0 {
			// The notes come as one message item of their own, the
			// output's last, the same in the stream and in the snapshot.
			last := final[len(final)-1]
			if last.Get("type").Str != "message" || !strings.HasSuffix(last.Get("content.0.text").Str, "blocked by block-all: no tools today") {
				t.Errorf("%s: the final output's last item does not carry the notes: %s", name, last.Raw)
			}
			if !strings.Contains(out, `"item_id":"`+last.Get("id").Str+`"`) {
				t.Errorf("%s: the notes' item %s was not streamed", name, last.Get("id").Str)
			}
		}
	}
}

func TestCodecSnapshotStreamsRewritten(t *testing.T) {
	opts := Options{Engine: engineFor(t, stampHook)}
	for name, stream := range responsesStreams(t) {
		direct := viewOf(t, stream)
		out, err := relayCodecSSE(t, opts, stream)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		v := viewOf(t, out)
		if len(v.Calls) != len(direct.Calls) {
			t.Fatalf("%s: %d calls, the recording has %d", name, len(v.Calls), len(direct.Calls))
		}
		for i, c := range v.Calls {
			want := map[string]any{}
			if err := json.Unmarshal([]byte(direct.Calls[i].Item), &want); err != nil {
				t.Fatal(err)
			}
			want["audited"] = true
			for what, got := range map[string]string{"deltas": c.Args, "done event": c.Done, "done item": c.Item, "final output": c.Final} {
				var args map[string]any
				if err := json.Unmarshal([]byte(got), &args); err != nil || !equalJSON(args, want) {
					t.Errorf("%s: call %d %s: %s, want %v", name, i, what, got, want)
				}
			}
			if c.CallID != direct.Calls[i].CallID || c.Name != direct.Calls[i].Name {
				t.Errorf("%s: call %d is %s %s, the recording's %s %s", name, i, c.CallID, c.Name, direct.Calls[i].CallID, direct.Calls[i].Name)
			}
		}
		if !contiguous(v.Seqs) {
			t.Errorf("%s: sequence numbers not contiguous: %v", name, v.Seqs)
		}
	}
}
