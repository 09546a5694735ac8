package interceptors

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/hookgate/hookgate/providers"
)

// pieceLines is a small NDJSON format whose calls stream in pieces, to
// drive the codec machine's streamed-call path: {"slot":n,"text":..} is
// text in slot n (opening it with "open"), {"start":n,"id","name"} starts
// the call in slot n, {"args":n,"frag":..} adds to its arguments,
// {"stop":n} completes it, {"done":true} ends the answer (a "note" joins
// it). Requests and framing are Ollama's.
type pieceLines struct{ providers.Codec }

var _ providers.PieceCodec = pieceLines{}

func (pieceLines) DecodeFrame(payload []byte, f *providers.CodecFrame) error {
	*f = providers.CodecFrame{Meaningful: true}
	j := gjson.ParseBytes(payload)
	slot := func(key string, opens bool) {
		f.Slot = providers.FrameSlot{Set: true, Opens: opens, Index: int(j.Get(key).Int())}
	}
	switch {
	case j.Get("start").Exists():
		slot("start", true)
		f.Piece = providers.CallPiece{Part: providers.PieceStart, Key: j.Get("start").Raw, ID: j.Get("id").String(), Name: j.Get("name").String()}
	case j.Get("args").Exists():
		slot("args", false)
		f.Piece = providers.CallPiece{Part: providers.PieceArgs, Key: j.Get("args").Raw, Args: []byte(j.Get("frag").String())}
	case j.Get("stop").Exists():
		slot("stop", false)
		f.Piece = providers.CallPiece{Part: providers.PieceEnd, Key: j.Get("stop").Raw}
	case j.Get("slot").Exists():
		slot("slot", j.Get("open").Bool())
		f.Text = []byte(j.Get("text").String())
	case j.Get("done").Bool():
		f.Ends = true
	}
	return nil
}

func (pieceLines) EditFrame(payload []byte, _ *providers.CodecFrame, _ []providers.CallEdit, text string) ([]byte, error) {
	return sjson.SetBytes(payload, "note", text)
}

func (pieceLines) EncodeCall(slot int, c providers.CodecCall) ([][]byte, error) {
	start, _ := sjson.SetBytes([]byte(`{}`), "start", slot)
	start, _ = sjson.SetBytes(start, "id", c.ID)
	start, _ = sjson.SetBytes(start, "name", c.Name)
	args, _ := sjson.SetBytes([]byte(`{}`), "args", slot)
	args, _ = sjson.SetBytes(args, "frag", string(c.Args))
	stop, _ := sjson.SetBytes([]byte(`{}`), "stop", slot)
	return [][]byte{start, args, stop}, nil
}

func (pieceLines) Renumber(payload []byte, _ *providers.CodecFrame, slot int) ([]byte, error) {
	for _, k := range []string{"start", "args", "stop", "slot"} {
		if gjson.GetBytes(payload, k).Exists() {
			return sjson.SetBytes(payload, k, slot)
		}
	}
	return payload, nil
}

// relayPieces runs a pieceLines stream through the codec interceptor
// under the hooks in doc.
func relayPieces(t *testing.T, doc, stream string) string {
	t.Helper()
	c := NewCodec(Options{Engine: engineFor(t, doc)}, pieceLines{providers.OllamaCodec})
	x, err := c.Begin(context.Background(), &Request{Route: "/api/chat", Body: []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	var out bufferSink
	if err := x.RelayStream(context.Background(), strings.NewReader(stream), &out); err != nil {
		t.Fatalf("relay: %v\n%s", err, out.String())
	}
	return out.String()
}

const (
	piecesNoRm = `
- id: no-rm
  event: pre_tool_use
  handler: {type: script, source: 'function handle(e) { return String(e.toolInput.command).indexOf("rm ") === 0 ? {decision: "block", reason: "no rm"} : {decision: "allow"}; }'}
`
	piecesStamp = `
- id: stamp
  event: pre_tool_use
  allow_mutation: [toolInput.audited]
  handler: {type: script, source: 'function handle(e) { return {decision: "rewrite", updatedInput: {audited: true}}; }'}
`
	piecesDryRun = `
- id: dry
  event: pre_tool_use
  dry_run: true
  handler: {type: script, source: 'function handle(e) { return {decision: "block", reason: "would"}; }'}
`
	// piecesStream: text in slot 0, an rm call in slot 1 whose arguments
	// come in two fragments with text of slot 0 between them, an ls call
	// in slot 2, the end.
	piecesStream = `{"slot":0,"open":true,"text":"Cleaning."}
{"start":1,"id":"c1","name":"exec"}
{"args":1,"frag":"{\"command\":"}
{"slot":0,"text":" Now."}
{"args":1,"frag":"\"rm -rf /\"}"}
{"stop":1}
{"start":2,"id":"c2","name":"exec"}
{"args":2,"frag":"{\"command\":\"ls\"}"}
{"stop":2}
{"done":true}
`
)

// A blocked streamed call leaves none of its frames, the slots after it
// move up, what came between its pieces keeps its place after the call
// would have been, and its note joins the end of the answer.
func TestCodecStreamedCallBlockedLeavesNoFrameAndRenumbers(t *testing.T) {
	got := relayPieces(t, piecesNoRm, piecesStream)
	want := `{"slot":0,"open":true,"text":"Cleaning."}
{"slot":0,"text":" Now."}
{"start":1,"id":"c2","name":"exec"}
{"args":1,"frag":"{\"command\":\"ls\"}"}
{"stop":1}
`
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got:\n%s\nwant it to start:\n%s", got, want)
	}
	last := strings.TrimPrefix(got, want)
	if !strings.Contains(last, `"done":true`) || !strings.Contains(last, "no rm") || strings.Count(got, "\n") != 6 {
		t.Fatalf("the end of the answer does not carry the note, or more came:\n%s", got)
	}
}

// An allowed call goes out as it came, byte for byte.
func TestCodecStreamedCallAllowedKeepsItsBytes(t *testing.T) {
	stream := strings.Replace(piecesStream, `rm -rf /`, `echo hi`, 1)
	if got := relayPieces(t, piecesNoRm, stream); got != stream {
		t.Fatalf("got:\n%s\nwant:\n%s", got, stream)
	}
}

// A rewritten call goes out as the codec's encoding of the whole call,
// in its slot, in place of its first frame; its own frames do not.
func TestCodecStreamedCallRewrittenIsEncodedWhole(t *testing.T) {
	got := relayPieces(t, piecesStamp, piecesStream)
	want := `{"slot":0,"open":true,"text":"Cleaning."}
{"start":1,"id":"c1","name":"exec"}
{"args":1,"frag":"{\"command\":\"rm -rf /\",\"audited\":true}"}
{"stop":1}
{"slot":0,"text":" Now."}
{"start":2,"id":"c2","name":"exec"}
{"args":2,"frag":"{\"command\":\"ls\",\"audited\":true}"}
{"stop":2}
{"done":true}
`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Behind a dry run only, the stream goes out as it came.
func TestCodecStreamedCallUnheldBehindDryRun(t *testing.T) {
	if got := relayPieces(t, piecesDryRun, piecesStream); got != piecesStream {
		t.Fatalf("got:\n%s\nwant:\n%s", got, piecesStream)
	}
}

// A stream that ends inside a call never writes it.
func TestCodecStreamedCallTruncatedIsNeverWritten(t *testing.T) {
	stream := piecesStream[:strings.Index(piecesStream, `{"stop":1}`)]
	c := NewCodec(Options{Engine: engineFor(t, piecesNoRm)}, pieceLines{providers.OllamaCodec})
	x, err := c.Begin(context.Background(), &Request{Route: "/api/chat", Body: []byte(`{"model":"m","messages":[{"role":"user","content":"go"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	var out bufferSink
	if err := x.RelayStream(context.Background(), strings.NewReader(stream), &out); err == nil {
		t.Fatalf("a truncated stream relayed without error:\n%s", out.String())
	}
	if strings.Contains(out.String(), `"start"`) || strings.Contains(out.String(), "rm -rf") {
		t.Fatalf("the unfinished call reached the client:\n%s", out.String())
	}
}
