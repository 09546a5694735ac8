package providers

import "fmt"

// Where a client reads a tool call out of OpenAI Responses traffic, and what
// hookgate does with each place. A client here is openai-go (ssestream of
// ResponseStreamEventUnion) or openai-node (ResponseStream, whose
// finalResponse() is the last response snapshot it saw):
//
//   - output_item.added and output_item.done, whose "item" is a
//     function_call (arguments) or custom_tool_call (input), and the
//     function_call_arguments / custom_tool_call_input delta and done
//     events of that item: held from added to done and judged as one call;
//     every source of the input must agree.
//   - an item of a kind the agent runs itself that hookgate does not judge
//     (local_shell_call, shell_call, apply_patch_call, computer_call;
//     ResponsesClientRunItem), in an item event, in a response's output or
//     in a non-streamed body: refused.
//   - an "item" holding a call in any other event: refused.
//   - response.completed, .incomplete and .failed carry the whole response:
//     its output is patched to the decisions (a blocked call removed, a
//     rewritten one given its new input, an allowed one its judged input,
//     hookgate's notes joined to the last message's text), and a call only
//     it lists is judged first.
//   - response.created, .in_progress, .queued and any other event carrying
//     a "response" snapshot: openai-node takes it as the response it
//     builds on. One whose output is not empty is refused
//     (CheckResponsesSnapshot).
//   - events after the terminal event (completed, incomplete, failed):
//     refused, never relayed, since openai-node's snapshot follows them;
//     "[DONE]" alone may follow. (After an in-band error OpenAI sends
//     response.failed; clients stop at the error.)
//   - the "event:" name, when present, must be the payload's type
//     (EventNameMatches), and sequence_number, output_index and
//     content_index plain non-negative integers (ErrNotAnIndex).
//   - a non-streamed body's output[]: every call is judged.
//
// Items the provider runs (web_search_call, file_search_call,
// code_interpreter_call, image_generation_call, mcp_call, tool_search_call)
// report what ran there and pass.

// ErrSnapshotOutput: an event other than the terminal one carries a
// response snapshot whose output is not empty. It wraps ErrInvalidJSON.
var ErrSnapshotOutput = fmt.Errorf("a response snapshot before the end carries output items: %w", ErrInvalidJSON)

// CheckResponsesSnapshot checks the "response" member of a non-terminal
// event: its output must be absent, null or an empty array. OpenAI sends
// "output":[] in response.created and response.in_progress.
func CheckResponsesSnapshot(response Field) error {
	if !response.Set() {
		return nil
	}
	out := memberOf(response.Raw, "output")
	if !out.Set() {
		return nil
	}
	arr, ok := iterArray(out.Raw)
	if !ok {
		return fmt.Errorf("output is not an array: %w", ErrSnapshotOutput)
	}
	if _, more := arr.next(); more {
		return ErrSnapshotOutput
	}
	return nil
}

// ResponsesClientRunItem reports an output item type that asks the agent to
// run something, other than the two hookgate judges (function_call,
// custom_tool_call). hookgate refuses a response that carries one rather
// than pass it unjudged.
func ResponsesClientRunItem(typ []byte) bool {
	switch string(typ) {
	case "local_shell_call", "shell_call", "apply_patch_call", "computer_call":
		return true
	}
	return false
}

// RunsUnjudged reports an item of a kind ResponsesClientRunItem names.
func (it *ResponsesItem) RunsUnjudged() bool {
	var tmp [64]byte
	return ResponsesClientRunItem(stringValue(it.Type, tmp[:0]))
}
