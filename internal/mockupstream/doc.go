// Package mockupstream is a scripted, OpenAI-compatible upstream on loopback
// for hookgate's end-to-end tests, its demo and its benchmark.
//
// It is a real HTTP server (fasthttp on a 127.0.0.1 listener), so what a
// proxy sees from it is what it would see from a provider: status, headers,
// and a body that is either a plain Content-Length body or a chunked body
// written piece by piece with a flush after every piece. The pieces are cut
// by a Chunking (one per SSE event, N bytes, random split points with a
// seed), paced by an optional interval, and preceded by an optional latency.
// Faults are scripted too: cut the connection mid-body, stall mid-body, or
// hang without answering.
//
// Responses come from a queue (Enqueue) and, once it is empty, from a
// function (Handle). Every request is recorded (Requests) unless the server
// was built with Options.NoRecord, as the benchmark does.
//
// Bodies come from recorded fixtures (Fixture, FixturePath), from the
// synthetic generator (StreamSpec: N text deltas then M tool calls whose
// arguments are split into K fragments), or from the caller.
//
//	srv := mockupstream.Start(t)
//	srv.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 1}))
//	resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", req)
package mockupstream
