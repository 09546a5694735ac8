package providers

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// responsesCodecRequest is a POST /v1/responses request read by
// ResponsesCodec. Its Turn is the request's own items: a chain's stored
// history (previous_response_id) is not in it.
type responsesCodecRequest struct {
	view *ResponsesRequest
}

// ParseRequest reads the request body (ParseResponsesRequest is its gate).
func (responsesCodec) ParseRequest(_, _ string, body []byte) (CodecRequest, error) {
	view, err := ParseResponsesRequest(body)
	if err != nil {
		return nil, err
	}
	return &responsesCodecRequest{view: view}, nil
}

func (r *responsesCodecRequest) Model() string  { return r.view.Model }
func (r *responsesCodecRequest) User() string   { return r.view.User }
func (r *responsesCodecRequest) System() string { return r.view.SystemText() }
func (r *responsesCodecRequest) Streamed() bool { return r.view.Stream }

// Structured is false: the Responses interceptor adds pre_response's text
// to every answer that did not fail.
func (r *responsesCodecRequest) Structured() bool { return false }

func (r *responsesCodecRequest) FirstUserText() string {
	for _, it := range r.view.Input {
		if it.Type == "message" && it.Role == "user" {
			return it.Text
		}
	}
	return ""
}

// Turn reads the input items: user messages, the calls of the history
// and the outputs that answer them.
func (r *responsesCodecRequest) Turn() *Turn {
	t := &Turn{HasAssistant: r.view.PreviousResponseID != "", Calls: map[string]TurnCall{}}
	for _, it := range r.view.Input {
		switch {
		case it.Type == "message" && it.Role == "user":
			t.Users = append(t.Users, TurnMessage{Pos: it.Pos, Text: it.Text})
		case it.Type == "message" && it.Role == "assistant", it.Type == "reasoning":
			t.HasAssistant = true
		case it.Kind != NotACall:
			t.HasAssistant = true
			t.Calls[it.CallID] = TurnCall{Name: it.Name, Arguments: string(codecCallArgs(it.Kind, []byte(it.Input)))}
		case it.IsOutput():
			t.HasAssistant = true
			t.Results = append(t.Results, TurnResult{CallID: it.CallID, Content: it.Output})
		}
	}
	return t
}

func (r *responsesCodecRequest) ReplaceToolResult(body []byte, callID, content string) ([]byte, error) {
	return ReplaceToolOutput(body, callID, content)
}

func (r *responsesCodecRequest) AppendToMessage(body []byte, pos int, text string) ([]byte, error) {
	return AppendToInputMessage(body, pos, text)
}

func (r *responsesCodecRequest) InjectSystem(body []byte, text string, afterAgentSystem bool) ([]byte, error) {
	return InjectInstructions(body, text, afterAgentSystem)
}

// Answer is a synthesized response carrying text, streamed when the
// request asked for a stream.
func (r *responsesCodecRequest) Answer(text string) (string, []byte) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := "resp_hookgate_" + hex.EncodeToString(b[:])
	if r.view.Stream {
		return "text/event-stream", SynthesizeResponseStream(id, r.view.Model, time.Now().Unix(), text)
	}
	return "application/json", SynthesizeResponse(id, r.view.Model, time.Now().Unix(), text)
}

// ResponsesCodecRequest is a request the Responses interceptor read, as
// ResponsesCodec reads it.
func ResponsesCodecRequest(view *ResponsesRequest) CodecRequest {
	return &responsesCodecRequest{view: view}
}
