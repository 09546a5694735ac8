package providers

import "fmt"

// Where a client reads a tool call out of Anthropic Messages traffic, and
// what hookgate does with each place. A client here is anthropic-sdk-go
// (ssestream and Message.Accumulate) or @anthropic-ai/sdk (MessageStream,
// finalMessage):
//
//   - content_block_start.content_block of type tool_use, with its input,
//     and the input_json_delta fragments of its content_block_delta events
//     (by "index"): held from start to content_block_stop and judged as one
//     call. A fragment for an index no block started, or for a tool_use
//     already stopped, is refused: the SDKs would add it to whichever block
//     sits at that index.
//   - message_start.message.content: both SDKs take the message as their
//     snapshot, blocks included. hookgate refuses a message_start whose
//     content is not empty (CheckMessageStart), and a second message_start.
//   - message_stop (and the upstream's error event) end the message. An
//     event with data after it is refused, never relayed: the SDKs go on
//     reading it.
//   - the "event:" name: the SDKs dispatch on it and read the payload by its
//     "type"; an event whose two differ is refused (EventNameMatches).
//   - "index": the SDKs place a block and its deltas by it; one that is not
//     a plain non-negative integer is refused (ErrNotAnIndex).
//   - a non-streamed body's content[]: every tool_use block is judged.
//
// server_tool_use, web_search_tool_result and the other server-run blocks
// report what Anthropic ran; no client runs them, and they pass.

// ErrMessageStartContent: a message_start's message already carries content
// blocks. Both SDKs take them into the message they build, so a tool_use
// there would reach the agent without ever being streamed as a block.
// Anthropic always sends "content":[]. It wraps ErrInvalidJSON.
var ErrMessageStartContent = fmt.Errorf("message_start carries content blocks: %w", ErrInvalidJSON)

// CheckMessageStart checks message_start's message object: its content
// must be absent, null or an empty array.
func CheckMessageStart(message []byte) error {
	content := memberOf(message, "content")
	if !content.Set() {
		return nil
	}
	arr, ok := iterArray(content.Raw)
	if !ok {
		return fmt.Errorf("content is not an array: %w", ErrMessageStartContent)
	}
	if _, more := arr.next(); more {
		return ErrMessageStartContent
	}
	return nil
}
