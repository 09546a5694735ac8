package e2e

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"
)

// responsesCall is an OpenAI Responses stream: a short text, then an exec
// call whose arguments arrive in three deltas.
const responsesCall = `event: response.created
data: {"type":"response.created","response":{"id":"resp_unheld","object":"response","created_at":1782321662,"status":"in_progress","model":"gpt-4o","output":[]},"sequence_number":0}

event: response.output_item.added
data: {"type":"response.output_item.added","item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]},"output_index":0,"sequence_number":1}

event: response.content_part.added
data: {"type":"response.content_part.added","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"sequence_number":2}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Cleaning up.","sequence_number":3}

event: response.output_text.done
data: {"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":"Cleaning up.","sequence_number":4}

event: response.content_part.done
data: {"type":"response.content_part.done","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Cleaning up.","annotations":[]},"sequence_number":5}

event: response.output_item.done
data: {"type":"response.output_item.done","item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Cleaning up.","annotations":[]}]},"output_index":0,"sequence_number":6}

event: response.output_item.added
data: {"type":"response.output_item.added","item":{"id":"fc_rm","type":"function_call","status":"in_progress","arguments":"","call_id":"call_rm","name":"exec"},"output_index":1,"sequence_number":7}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_rm","output_index":1,"delta":"{\"command\":","sequence_number":8}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_rm","output_index":1,"delta":"\"rm -rf / ","sequence_number":9}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","item_id":"fc_rm","output_index":1,"delta":"--no-preserve-root\"}","sequence_number":10}

event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","item_id":"fc_rm","output_index":1,"arguments":"{\"command\":\"rm -rf / --no-preserve-root\"}","sequence_number":11}

event: response.output_item.done
data: {"type":"response.output_item.done","item":{"id":"fc_rm","type":"function_call","status":"completed","arguments":"{\"command\":\"rm -rf / --no-preserve-root\"}","call_id":"call_rm","name":"exec"},"output_index":1,"sequence_number":12}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_unheld","object":"response","created_at":1782321662,"status":"completed","model":"gpt-4o","output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Cleaning up.","annotations":[]}]},{"id":"fc_rm","type":"function_call","status":"completed","arguments":"{\"command\":\"rm -rf / --no-preserve-root\"}","call_id":"call_rm","name":"exec"}],"usage":{"input_tokens":5,"output_tokens":20,"total_tokens":25}},"sequence_number":13}

`

// responsesCallMarker is what the call's first delta carries: the
// upstream pauses after it.
const responsesCallMarker = `"response.function_call_arguments.delta"`

var responsesCallRequest = []byte(`{"model":"gpt-4o","stream":true,"input":"clean up"}`)

// openaiGoPausedAt reads a streamed Responses answer through base with
// openai-go's stream reader while the upstream pauses after the call's
// first delta. It opens the gate when the client reads that delta, or,
// with wait set, wait after the client has read response.created; early
// reports that the delta came before the gate opened (or the pause ran
// out).
func openaiGoPausedAt(t *testing.T, u *pausingUpstream, base, session string, wait time.Duration) (early bool, out respOutcome) {
	t.Helper()
	release := u.arm(false)
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client := openaiGoClient(base)
	params := respParams("gpt-4o")
	stream := client.Responses.NewStreaming(ctx, params, option.WithHeader("X-Session-Id", session), option.WithRequestTimeout(3*time.Minute))
	defer stream.Close()
	var released atomic.Bool
	expired := u.expired.Load()
	for stream.Next() {
		ev := stream.Current()
		out.Seqs = append(out.Seqs, ev.SequenceNumber)
		switch ev.Type {
		case "response.created":
			if wait > 0 {
				time.AfterFunc(wait, func() { released.Store(true); release() })
			}
		case "response.function_call_arguments.delta":
			if !early && !released.Load() && u.expired.Load() == expired {
				early = true
				release()
			}
		case "response.output_item.done":
			if ev.Item.Type == "function_call" {
				fc := ev.Item.AsFunctionCall()
				out.ItemDone = append(out.ItemDone, respCall{fc.CallID, fc.Name, fc.Arguments})
			}
		case "response.completed", "response.incomplete", "response.failed":
			r := ev.Response
			out.Status, out.Text, out.Calls = string(r.Status), r.OutputText(), callsOfResponse(r)
		}
	}
	if err := stream.Err(); err != nil {
		out.Err = err.Error()
	}
	return early, out
}

func TestDryRunOnlyChainRelaysResponsesCallsUnheld(t *testing.T) {
	u := startPausingUpstreamOf(t, []byte(responsesCall), responsesCallMarker)
	bare := pausedStack(t, u, "")
	bareEarly, want := streamPausedAt(t, u, bare+"/v1/responses", responsesCallRequest, responsesCallMarker, nil)
	if !bareEarly || !bytes.Contains(want, []byte("call_rm")) {
		t.Fatalf("the no-hook run: early %v, body:\n%s", bareEarly, want)
	}

	dbPath := filepath.Join(t.TempDir(), "audit.db")
	base := pausedStack(t, u, dryRunPolicy+"store:\n  path: "+dbPath+"\n")

	// The bytes: as without hooks, the call's first delta read while the
	// upstream has not finished the call.
	early, got := streamPausedAt(t, u, base+"/v1/responses", responsesCallRequest, responsesCallMarker, map[string]string{"X-Session-Id": "unheld-r1"})
	if !early {
		t.Error("with only a dry-run hook, the call's first delta was held until the upstream finished the call")
	}
	if !bytes.Equal(got, want) {
		t.Errorf("bytes differ from the no-hook run:\n got %q\nwant %q", got, want)
	}

	// openai-go's stream reader gets the delta early too, and assembles
	// the call as the upstream sent it.
	early, out := openaiGoPausedAt(t, u, base, "unheld-r2", 0)
	if !early {
		t.Error("openai-go read the call's first delta only after the upstream finished the call")
	}
	wantCall := respCall{CallID: "call_rm", Name: "exec", Arguments: `{"command":"rm -rf / --no-preserve-root"}`}
	if out.Err != "" || out.Status != "completed" || len(out.Calls) != 1 || out.Calls[0] != wantCall ||
		len(out.ItemDone) != 1 || out.ItemDone[0] != wantCall || out.Text != "Cleaning up." || !contiguousSeqs(out.Seqs) {
		t.Fatalf("openai-go read %v, item done %+v", out, out.ItemDone)
	}

	// Both exchanges' dry runs recorded what they would have done.
	if d := dryRunDecisions(t, dbPath, "dry-no-rm", 2); d["would_block"] != 2 {
		t.Fatalf("audit decisions %v, want two would_block (call_rm, once per exchange)", d)
	}
}

func TestResponsesDryRunBesideEnforcingHookStillHolds(t *testing.T) {
	u := startPausingUpstreamOf(t, []byte(responsesCall), responsesCallMarker)
	dbPath := filepath.Join(t.TempDir(), "audit.db")
	base := pausedStack(t, u, enforcedBesideDryRun+"store:\n  path: "+dbPath+"\n")

	// The gate opens 300 ms after response.created whatever the client
	// reads: a call's delta read before that was not held.
	early, out := openaiGoPausedAt(t, u, base, "held-r1", 300*time.Millisecond)
	if early {
		t.Error("an enforcing hook is in scope, yet the call's first delta reached the client before the upstream finished the call")
	}
	if out.Err != "" || len(out.Calls) != 0 || len(out.ItemDone) != 0 || !bytes.Contains([]byte(out.Text), []byte("blocked by no-rm")) {
		t.Fatalf("the enforcing hook did not block the held call: %v, item done %+v", out, out.ItemDone)
	}
	if d := dryRunDecisions(t, dbPath, "dry-no-rm", 1); d["would_block"] != 1 {
		t.Fatalf("dry-run decisions %v, want one would_block", d)
	}

	// Bytes, read raw: the call's delta is not in the stream at all.
	u.arm(true)
	code, _, got := rawPost(t, base, "/v1/responses", responsesCallRequest, map[string]string{"X-Session-Id": "held-r2"})
	if code != http.StatusOK || bytes.Contains(got, []byte("no-preserve-root")) {
		t.Fatalf("status %d, body:\n%s", code, got)
	}
}
