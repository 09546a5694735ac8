// Package providers holds hookgate's wire-format codecs: one per API an agent
// may speak to an LLM. A codec
// reads traffic into plain views and writes synthesised pieces back:
//
//   - sse.go, sse_write.go: an incremental Server-Sent Events parser that
//     yields each event with its exact bytes (so untouched events are
//     relayed byte for byte), and SSE framing for synthesised events;
//   - chat_chunk.go, field.go: a cheap view of one chat.completion.chunk;
//   - chat_toolcalls.go: an assembler turning streamed tool-call deltas into
//     whole calls with stable ordinals, without trusting the wire index;
//   - chat_encode.go, openai_error.go: synthesised chunks and error bodies
//     built from the original bytes;
//   - chat_response.go, chat_request.go: views and edits of non-streamed
//     responses and of requests;
//   - anthropic_*.go: Anthropic Messages — the request view and its edits
//     (system, tool_result, user text), a zero-allocation view of one
//     stream event, encoders for synthesised events (a text block, a whole
//     input as one input_json_delta, a moved index, a changed stop_reason),
//     the response view and its edits, the error body and event;
//   - responses_*.go: OpenAI Responses — the request view and its edits
//     (instructions, tool outputs by call_id, user input, synthetic
//     outputs), a zero-allocation view of one stream event, encoders for
//     sequence numbers, call inputs, note items and the final output, the
//     response view and its edits;
//   - anthropic_calls.go, responses_calls.go: every member in which some
//     client reads a tool call, per format, and what hookgate does with
//     each (held and judged, or the event refused); wire_index.go and
//     event_name.go: the numbers and names a client counts by, refused
//     unless plain;
//   - chat_synthesize.go, chat_retry.go, chat_request_user.go: replies
//     hookgate gives itself, the tool round of a retry, summed usage;
//   - codec.go: the format-neutral Codec interface (a request as a Turn,
//     frames as neutral parts, the encodings of hookgate's decisions);
//     PieceCodec adds what a format whose calls stream in pieces needs
//     (a call's start, fragments and end, slots, a call encoded whole, a
//     frame renumbered). gemini_*.go (Google's Gemini API) and ollama_*.go
//     (Ollama's /api/chat), whose calls arrive whole in one frame,
//     implement Codec;
//   - format*.go: the registry of formats (format_<name>.go, one each,
//     Azure OpenAI's read as OpenAI's);
//   - json_scan.go, json_edit.go, json_dupkeys.go: the JSON plumbing they
//     share.
//
// JSON is read with gjson (or, on the per-chunk hot path, with the small
// zero-allocation scanner in json_scan.go) and edited with sjson on a copy:
// an input slice is never written to, and no edit returns a slice that
// aliases its input. Everything not edited keeps its bytes, key order and
// number formatting.
//
// providers knows nothing of hooks, interceptors or the proxy; it must never
// import them. Views alias the bytes they were built from; each type says how
// long its slices stay valid.
package providers
