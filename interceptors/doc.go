// Package interceptors holds the agent-loop semantics: it reads a request
// and its response through a provider codec, decides which hook event fires
// when, holds streamed tool calls until each is complete, and applies the
// hooks' decisions (block, rewrite, inject, append). Session identity and
// memory, and the dedupe of resent history, live here too.
//
// Formats that bring a providers.Codec are read by one format-neutral
// interceptor (codec*.go): its stream machine holds whole calls
// (codec_stream.go) and calls streamed in pieces (codec_pieces.go),
// relays them unheld behind dry-run hooks only (codec_unheld.go), and
// knows no format. Chat completions, Responses and Messages still have
// stream machines of their own.
//
// It knows nothing of sockets or YAML: the proxy hands it bytes and a sink,
// and it never imports the proxy.
package interceptors
