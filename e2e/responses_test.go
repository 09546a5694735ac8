package e2e

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	openaigo "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/providers"
)

// The OpenAI Responses route (POST /v1/responses) end to end: the recorded
// Responses streams and bodies replayed by the mock, hookgate built as
// `hookgate serve` builds it, and the official openai-go SDK as the agent.

// respCall is a call as the agent ends up with it.
type respCall struct {
	CallID, Name, Arguments string
}

// respOutcome is what an agent assembles from a Responses stream: the
// calls of the final response (and of the output_item.done events, which
// must agree), its text, the sequence numbers it saw, and the error the
// SDK raised.
type respOutcome struct {
	Calls    []respCall
	ItemDone []respCall
	Text     string
	Deltas   string // the output_text deltas, concatenated
	Status   string
	Seqs     []int64
	Err      string
}

func (o respOutcome) String() string {
	return fmt.Sprintf("status=%q text=%q err=%q calls=%+v seqs=%v", o.Status, o.Text, o.Err, o.Calls, o.Seqs)
}

func respParams(model string) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model: model,
		Input: responses.ResponseNewParamsInputUnion{OfString: openaigo.String("What is the weather in Paris?")},
	}
}

func callsOfResponse(r responses.Response) (calls []respCall) {
	for _, it := range r.Output {
		if it.Type == "function_call" {
			fc := it.AsFunctionCall()
			calls = append(calls, respCall{fc.CallID, fc.Name, fc.Arguments})
		}
	}
	return calls
}

// openaiGoResponsesStream reads a streamed response with openai-go's
// client.Responses.NewStreaming.
func openaiGoResponsesStream(t *testing.T, base string, params responses.ResponseNewParams) respOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := openaiGoClient(base)
	stream := client.Responses.NewStreaming(ctx, params)
	defer stream.Close()
	var out respOutcome
	for stream.Next() {
		ev := stream.Current()
		out.Seqs = append(out.Seqs, ev.SequenceNumber)
		switch ev.Type {
		case "response.output_text.delta":
			out.Deltas += ev.Delta
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
	return out
}

// openaiGoResponsesPlain reads a non-streamed response with openai-go.
func openaiGoResponsesPlain(t *testing.T, base string, params responses.ResponseNewParams) respOutcome {
	t.Helper()
	client := openaiGoClient(base)
	r, err := client.Responses.New(context.Background(), params)
	if err != nil {
		return respOutcome{Err: err.Error()}
	}
	return respOutcome{Status: string(r.Status), Text: r.OutputText(), Calls: callsOfResponse(*r)}
}

// respFixture is a recorded Responses body and how the mock replays it.
type respFixture struct {
	rel  string
	body []byte
	sse  bool // a stream; else a plain JSON body
	// framed: a .chunks.jsonl file whose payloads this test framed as one
	// "data:" event each (its recorder dropped the framing)
	framed bool
}

func responsesFixtures(t *testing.T) []respFixture {
	var out []respFixture
	for _, f := range fixtures.List(t, fixtures.APIResponses, fixtures.KindSSE) {
		out = append(out, respFixture{rel: f.Rel, body: f.Read(t), sse: true})
	}
	for _, f := range fixtures.List(t, fixtures.APIResponses, fixtures.KindChunks) {
		var b []byte
		for _, line := range bytes.Split(bytes.TrimRight(f.Read(t), "\n"), []byte("\n")) {
			b = providers.AppendSSEData(b, line)
		}
		out = append(out, respFixture{rel: f.Rel, body: b, sse: true, framed: true})
	}
	for _, f := range fixtures.List(t, fixtures.APIResponses, fixtures.KindJSON) {
		out = append(out, respFixture{rel: f.Rel, body: f.Read(t)})
	}
	if len(out) < 8 {
		t.Fatalf("only %d recorded Responses bodies", len(out))
	}
	return out
}

func (f respFixture) response(c mockupstream.Chunking) mockupstream.Response {
	if f.sse {
		return mockupstream.Stream(f.body, c)
	}
	return mockupstream.JSON(200, f.body)
}

func (f respFixture) read(t *testing.T, base string) respOutcome {
	if f.sse {
		return openaiGoResponsesStream(t, base, respParams("gpt-5"))
	}
	return openaiGoResponsesPlain(t, base, respParams("gpt-5"))
}

// contiguousSeqs reports sequence numbers counting up by one.
func contiguousSeqs(s []int64) bool {
	for i := 1; i < len(s); i++ {
		if s[i] != s[i-1]+1 {
			return false
		}
	}
	return true
}

func TestResponsesRecordedStreamsPassByteForByte(t *testing.T) {
	for _, p := range []struct{ name, policy string }{{"no hooks", ""}, {"allowing hook", allowEveryTool}} {
		t.Run(p.name, func(t *testing.T) {
			s := startStack(t, p.policy)
			for _, f := range responsesFixtures(t) {
				for _, c := range chunkings {
					s.mock.Enqueue(f.response(c))
					status, _, got := rawPost(t, s.app.URL(), "/v1/responses", []byte(`{"model":"gpt-5","stream":true,"input":"hi"}`), nil)
					if status != 200 || !bytes.Equal(got, f.body) {
						t.Fatalf("%s, %s: status %d; the response did not pass byte for byte:\n%s", f.rel, c.Mode, status, firstDiff(got, f.body))
					}
				}
			}
		})
	}
}

func TestResponsesRecordedUnderAllowBlockRewrite(t *testing.T) {
	all := responsesFixtures(t)
	for _, p := range []struct{ name, policy string }{{"allow", allowEveryTool}, {"block", blockEveryTool}, {"rewrite", rewriteEveryTool}} {
		t.Run(p.name, func(t *testing.T) {
			s := startStack(t, p.policy)
			for i, f := range all {
				s.mock.Enqueue(f.response(mockupstream.Chunking{Mode: mockupstream.PerEvent}))
				direct := f.read(t, s.mock.URL())
				s.mock.Enqueue(f.response(mockupstream.Chunking{Mode: mockupstream.Random, Size: 61, Seed: uint64(i + 1)}))
				got := f.read(t, s.app.URL())
				if strings.Contains(f.rel, "error-event") {
					// The upstream failed mid-stream: the SDK raises, directly
					// and through hookgate alike.
					if direct.Err == "" || got.Err == "" {
						t.Errorf("%s: the upstream's error did not reach the SDK: direct %s, proxied %s", f.rel, direct, got)
					}
					continue
				}
				if direct.Err != "" || len(direct.Calls) == 0 {
					t.Fatalf("%s: openai-go cannot read the recording directly: %s", f.rel, direct)
				}
				if got.Err != "" || got.Status != direct.Status {
					t.Fatalf("%s: %s", f.rel, got)
				}
				if f.sse && !contiguousSeqs(got.Seqs) {
					t.Errorf("%s: sequence numbers not contiguous: %v", f.rel, got.Seqs)
				}
				if f.sse && !reflect.DeepEqual(got.ItemDone, got.Calls) {
					t.Errorf("%s: the done items %+v and the final output %+v disagree", f.rel, got.ItemDone, got.Calls)
				}
				switch p.name {
				case "allow":
					if !reflect.DeepEqual(got, direct) {
						t.Errorf("%s: through hookgate %s\ndirectly %s", f.rel, got, direct)
					}
				case "block":
					if len(got.Calls) != 0 {
						t.Errorf("%s: blocked calls reached the agent: %s", f.rel, got)
					}
					for _, c := range direct.Calls {
						note := "[hookgate] tool call " + c.Name + " blocked by block-all: no tools today"
						if !strings.Contains(got.Text, note) || (f.sse && !strings.Contains(got.Deltas, note)) {
							t.Errorf("%s: the agent's text lacks %q: %s", f.rel, note, got)
						}
					}
				case "rewrite":
					if len(got.Calls) != len(direct.Calls) {
						t.Fatalf("%s: %d calls, recorded %d", f.rel, len(got.Calls), len(direct.Calls))
					}
					for k, c := range direct.Calls {
						want := argsOf(t, c.Arguments)
						want["audited"] = true
						g := got.Calls[k]
						if g.CallID != c.CallID || g.Name != c.Name || !reflect.DeepEqual(argsOf(t, g.Arguments), want) {
							t.Errorf("%s: call %d is %+v, want %s %s %v", f.rel, k, g, c.CallID, c.Name, want)
						}
					}
				}
			}
		})
	}
}

// A blocked call in a stored response is answered for the agent on the
// next request of the chain, the chain stays in its session, and that
// session's context is in the instructions of every request.
func TestResponsesChainAfterABlockedCall(t *testing.T) {
	s := startStack(t, `hooks:
  - id: house-rules
    event: session_start
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow", additionalContext: "House rules: never touch production." }; }
  - id: no-multiply
    event: pre_tool_use
    matcher: multiply
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "multiplication is off" }; }
`)
	stream, _ := fixtureBody(t, "openai-responses/gpt5-reasoning-two-function-calls.sse")
	respID := gjson.GetBytes(stream[bytes.Index(stream, []byte("data: "))+6:], "response.id").Str
	s.mock.Enqueue(mockupstream.Stream(stream, mockupstream.Chunking{Mode: mockupstream.Random, Size: 40, Seed: 5}))
	params := respParams("gpt-5")
	params.Instructions = openaigo.String("You are a calculator.")
	first := openaiGoResponsesStream(t, s.app.URL(), params)
	if first.Err != "" || len(first.Calls) != 1 || first.Calls[0].Name != "add" || !strings.Contains(first.Text, "multiplication is off") || !contiguousSeqs(first.Seqs) {
		t.Fatalf("first turn: %s", first)
	}

	s.mock.Enqueue(mockupstream.JSON(200, providers.SynthesizeResponse("resp_2", "gpt-5", 1, "5")))
	output := responses.ResponseInputItemParamOfFunctionCallOutput("5")
	output.OfFunctionCallOutput.CallID = openaigo.String(first.Calls[0].CallID)
	next := responses.ResponseNewParams{
		Model:              "gpt-5",
		PreviousResponseID: openaigo.String(respID),
		Input:              responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{output}},
	}
	if got := openaiGoResponsesPlain(t, s.app.URL(), next); got.Err != "" || got.Text != "5" {
		t.Fatalf("second turn: %s", got)
	}
	reqs := s.mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d upstream requests", len(reqs))
	}
	sent := reqs[1].Body
	in := gjson.GetBytes(sent, "input").Array()
	if len(in) != 2 || in[0].Get("type").Str != "function_call_output" || in[0].Get("call_id").Str != "call_Op66UUnzuOoKmgGeFJQJFTUY" ||
		in[0].Get("output").Str != "blocked by no-multiply: multiplication is off" || in[1].Get("call_id").Str != first.Calls[0].CallID {
		t.Fatalf("the upstream did not get an output for the blocked call: %s", sent)
	}
	for i, r := range reqs {
		if got := gjson.GetBytes(r.Body, "instructions").Str; !strings.HasPrefix(got, "House rules: never touch production.") {
			t.Errorf("request %d: instructions %q", i, got)
		}
	}
	if got := gjson.GetBytes(sent, "instructions").Str; got != "House rules: never touch production." {
		t.Errorf("the chained request carries %q (instructions do not carry over a chain)", got)
	}
}

func fixtureBody(t *testing.T, rel string) ([]byte, fixtures.Fixture) {
	t.Helper()
	for _, f := range fixtures.All(t) {
		if f.Rel == rel {
			return f.Read(t), f
		}
	}
	t.Fatalf("no fixture %s", rel)
	return nil, fixtures.Fixture{}
}

// An upstream that dies mid-stream is an error for the SDK, never a
// completion, whether hookgate was relaying or holding a call.
func TestResponsesTruncatedStreamIsAnSDKError(t *testing.T) {
	body, _ := fixtureBody(t, "openai-responses/gpt4o-function-call-args-8-deltas.sse")
	for _, p := range []struct{ name, policy string }{{"no hooks", ""}, {"allowing hook", allowEveryTool}} {
		t.Run(p.name, func(t *testing.T) {
			s := startStack(t, p.policy)
			itemDone := bytes.Index(body, []byte("event: response.output_item.done"))
			for _, at := range []int{bytes.Index(body, []byte("response.output_item.added")), bytes.Index(body, []byte(`"delta":"Flor`)), itemDone + 40, bytes.Index(body, []byte("event: response.completed"))} {
				r := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 9})
				r.Fault, r.FaultAt = mockupstream.Cut, at
				s.mock.Enqueue(r)
				got := openaiGoResponsesStream(t, s.app.URL(), respParams("gpt-4o"))
				if got.Err == "" || got.Status != "" || len(got.Calls) != 0 {
					t.Errorf("cut at %d: the SDK did not raise: %s", at, got)
				}
				// A call cut short is never emitted. (One complete and judged
				// before the cut may have gone out: the SDK raises all the
				// same.)
				if p.policy != "" && at < itemDone+100 && len(got.ItemDone) != 0 {
					t.Errorf("cut at %d: a partial call reached the agent: %s", at, got)
				}
			}
		})
	}
}

// Only POST /v1/responses is read. The other endpoints under it would
// hand an agent what hookgate did not judge (a stored response with the
// calls it blocked, a background response, a resumed stream), so they stay
// refused while hooks are configured.
func TestResponsesOtherEndpointsStayRefused(t *testing.T) {
	s := startStack(t, allowEveryTool)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, providers.SynthesizeResponse("resp_1", "m", 1, "hi"))))
	if status, _, body := rawPost(t, s.app.URL(), "/v1/responses", []byte(`{"model":"m","input":"hi"}`), nil); status != 200 {
		t.Fatalf("POST /v1/responses: %d %s", status, body)
	}
	for _, path := range []string{"/v1/responses/resp_1", "/v1/responses/resp_1?stream=true", "/v1/responses/resp_1/input_items"} {
		resp, err := httpClient().Get(s.app.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("GET %s: %d, want 403", path, resp.StatusCode)
		}
	}
	if n := len(s.mock.Requests()); n != 1 {
		t.Errorf("%d requests reached the upstream, want 1", n)
	}
}
