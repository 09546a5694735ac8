package interceptors

import (
	"context"
	"io"
	"time"
)

// Request is what the proxy knows of a request on an intercepted route.
type Request struct {
	Route    string // normalised path, e.g. /v1/chat/completions
	Query    string // the raw query, when some format's route reads it (never logged: it may hold a key)
	Upstream string // configured upstream name
	Provider string // upstream's provider: openai | anthropic
	Tenant   string // the tenant the request authenticated as ("" without tenants)
	Agent    string // the agent bound to the virtual key ("" = from the agent header)
	Bypass   bool   // an evaluation key: blocking hooks are skipped and audited as bypassed
	// Header returns a request header's value ("" when absent). It is only
	// valid during Begin.
	Header func(name string) string
	// Body is the request body. The interceptor may keep it; it never
	// edits it in place.
	Body []byte
}

// Sink is the client side of a streamed response. Write appends bytes,
// Flush sends them; an error from either means the client is gone.
type Sink interface {
	io.Writer
	Flush() error
}

// Exchange is one intercepted request and its response.
type Exchange interface {
	// Body is the request body to send upstream (possibly rewritten).
	Body() []byte
	// Reply, when non-nil, answers the client without calling upstream.
	Reply() *Reply
	// RelayStream reads the upstream's event stream and writes what the
	// client should see. It returns when the stream has ended, the client
	// has gone (a Sink error), or ctx is done. ctx is looked at between
	// reads: the first read, before any call is held, waits for the
	// upstream (bounded by the upstream's own timeouts) on the caller's
	// goroutine. A stream that ends without its terminal marker is
	// reported to the client as an error event and returned as
	// ErrTruncated.
	RelayStream(ctx context.Context, upstream io.Reader, client Sink) error
	// FinishPlain rewrites a complete, successful, non-streamed response.
	FinishPlain(ctx context.Context, body []byte) ([]byte, error)
}

// Reply is a response hookgate gives without calling the upstream.
type Reply struct {
	Status      int
	ContentType string
	Body        []byte
}

// Interceptor starts exchanges for the routes it reads.
type Interceptor interface {
	// Begin reads the request. A *RequestError answers the client with its
	// status and message.
	Begin(ctx context.Context, req *Request) (Exchange, error)
}

// Resender is implemented by exchanges that may ask the upstream again
// after a complete response (on_block: retry). The proxy offers a resend
// function only when WantsResend is true.
type Resender interface {
	WantsResend() bool
	SetResend(func(ctx context.Context, body []byte) (io.ReadCloser, error))
}

// StreamReader is implemented by exchanges whose format streams in a
// media type of its own (an NDJSON stream, a JSON array sent a piece at a
// time): StreamsResponse reports a request for a streamed response, which
// the proxy then hands to RelayStream whatever its Content-Type. Without
// it, only text/event-stream is a stream.
type StreamReader interface {
	StreamsResponse() bool
}

// Describer is implemented by exchanges that can name, for the request's
// trace, the model the request asked for ("" when it named none) and the
// tokens the response reported (ok false until a usage member was read,
// and always while the request is not traced: usage is only read for a
// recording span). Neither is ever a prompt or a result.
type Describer interface {
	Model() string
	Usage() (input, output int64, ok bool)
}

// Timer is implemented by exchanges that report how long they waited for
// hooks and how long they worked on a stream themselves, so the proxy can
// report hookgate's own overhead without the upstream's or the hooks' time.
type Timer interface {
	Timing() (hooks, work time.Duration)
}
