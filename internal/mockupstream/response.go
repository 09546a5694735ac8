package mockupstream

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Response is what the mock answers to one request. The zero value is an
// empty 200 with a Content-Length of 0.
type Response struct {
	// Status is the HTTP status code; 0 means 200.
	Status int
	// Header is sent as given. A missing Content-Type defaults to
	// text/event-stream for a streamed response and application/json
	// otherwise.
	Header http.Header
	// Body is the whole body. The mock never modifies it, so one slice can
	// be shared by many responses.
	Body []byte
	// Stream sends Body with chunked transfer encoding, in the pieces that
	// Chunking cuts, flushing after each piece. Without Stream the body goes
	// out in one write with a Content-Length, and Chunking is ignored.
	Stream bool
	// Chunking cuts a streamed body into writes; the zero value writes it
	// whole.
	Chunking Chunking
	// Latency is waited before anything is sent. fasthttp sends the status
	// line and headers together with the first body write, so this is also
	// the latency to the first body byte.
	Latency time.Duration
	// Fault breaks the response on purpose; see Fault's constants. A fault
	// implies a chunked body, whatever Stream says.
	Fault Fault
	// FaultAt is the number of body bytes sent before Fault strikes.
	FaultAt int
}

// Fault is a scripted failure of a response.
type Fault int

const (
	// NoFault sends the whole response.
	NoFault Fault = iota
	// Cut sends FaultAt body bytes, then closes the connection without the
	// terminating chunk: the client sees an unexpected EOF, as when an
	// upstream dies mid-stream.
	Cut
	// Stall sends FaultAt body bytes, then sends nothing more and keeps the
	// connection open until the server is closed (then it is cut).
	Stall
	// Hang sends nothing at all, not even the status line, until the server
	// is closed.
	Hang
)

// String names the fault.
func (f Fault) String() string {
	switch f {
	case NoFault:
		return "none"
	case Cut:
		return "cut"
	case Stall:
		return "stall"
	case Hang:
		return "hang"
	}
	return "Fault(" + strconv.Itoa(int(f)) + ")"
}

// ChunkMode says how a streamed body is cut into writes.
type ChunkMode int

const (
	// Whole writes the body in one piece.
	Whole ChunkMode = iota
	// PerEvent writes one SSE event per piece: each piece ends after a blank
	// line (LF, CRLF or CR line endings). Bytes after the last blank line
	// form the final piece.
	PerEvent
	// PerLine writes one line per piece (NDJSON streams).
	PerLine
	// FixedSize writes Size bytes per piece (Size 1 is one byte per write).
	FixedSize
	// Random writes pieces of 1..Size bytes (Size 0 means 64), the lengths
	// drawn from a generator seeded with Seed, so a run is reproducible.
	Random
)

// String names the mode.
func (m ChunkMode) String() string {
	switch m {
	case Whole:
		return "whole"
	case PerEvent:
		return "per-event"
	case PerLine:
		return "per-line"
	case FixedSize:
		return "fixed"
	case Random:
		return "random"
	}
	return "ChunkMode(" + strconv.Itoa(int(m)) + ")"
}

// Chunking cuts a streamed body into writes and paces them.
type Chunking struct {
	Mode ChunkMode
	// Size is the piece length for FixedSize (0 means 1) and the largest
	// piece for Random.
	Size int
	// Seed seeds Random.
	Seed uint64
	// Interval paces the writes for a realistic chunk rate: write i is due
	// Interval*i after the first. The schedule is absolute, so one late
	// write does not delay the ones after it and timer jitter does not add
	// up over a long stream.
	// Waits are rounded up to the OS timer's resolution, which is about 1 ms
	// on some VMs.
	Interval time.Duration
}

// JSON is a plain (Content-Length) JSON response with the given status.
func JSON(status int, body []byte) Response {
	return Response{Status: status, Body: body, Header: http.Header{"Content-Type": {"application/json"}}}
}

// Stream is a 200 text/event-stream response written in pieces as c says.
func Stream(body []byte, c Chunking) Response {
	return Response{
		Body:     body,
		Stream:   true,
		Chunking: c,
		Header:   http.Header{"Content-Type": {"text/event-stream"}},
	}
}

// Error is a plain response in the OpenAI error shape
// {"error":{"message","type","code"}}.
func Error(status int, errType, message string) Response {
	body := fmt.Sprintf(`{"error":{"message":%s,"type":%s,"param":null,"code":%s}}`,
		strconv.Quote(message), strconv.Quote(errType), strconv.Quote(errType))
	return JSON(status, []byte(body))
}

// RateLimited is a 429 in the OpenAI error shape with a Retry-After header
// of the given number of seconds.
func RateLimited(retryAfterSeconds int) Response {
	r := Error(http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit reached (mockupstream)")
	r.Header.Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	return r
}
