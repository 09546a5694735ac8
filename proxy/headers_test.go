package proxy

import (
	"fmt"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// The Connection header's tokens are matched in any case and with the
// spaces around them trimmed; a name merely inside a token, or an empty
// token, names nothing.
func TestIsHopByHopConnectionTokens(t *testing.T) {
	for _, c := range []struct {
		name, connection string
		want             bool
	}{
		{"Keep-Alive", "", true},
		{"transfer-encoding", "", true},
		{"X-Trace", "", false},
		{"X-Trace", "close", false},
		{"X-Trace", "x-trace", true},
		{"X-Trace", "close, X-TRACE", true},
		{"X-Trace", " close ,\tx-trace\t", true},
		{"X-Trace", "close,,x-trace,", true},
		{"X-Trace", "x-trace-id", false},
		{"Trace", "x-trace", false},
		{"X-Trace", ",,", false},
	} {
		if got := isHopByHop([]byte(c.name), []byte(c.connection)); got != c.want {
			t.Errorf("isHopByHop(%q, Connection: %q) = %v, want %v", c.name, c.connection, got, c.want)
		}
	}
}

// Copying a response's headers allocates nothing per header for the
// Connection header's tokens: only what the destination grows by.
func TestCopyResponseHeadersDropsConnectionNamed(t *testing.T) {
	var src, dst fasthttp.ResponseHeader
	src.SetContentType("text/event-stream")
	src.Set("Connection", "keep-alive, X-Hop")
	src.Set("X-Hop", "secret")
	src.Set("X-Request-Id", "abc")
	copyResponseHeaders(&dst, &src)
	if got := dst.Peek("X-Hop"); got != nil {
		t.Errorf("X-Hop, named in Connection, was copied: %q", got)
	}
	if got := string(dst.Peek("X-Request-Id")); got != "abc" {
		t.Errorf("X-Request-Id %q, want abc", got)
	}
	if got := string(dst.ContentType()); got != "text/event-stream" {
		t.Errorf("Content-Type %q", got)
	}
	dst.Reset()
	copyResponseHeaders(&dst, &src) // grown once: the next copy reuses its room
	dst.Reset()
	if n := testing.AllocsPerRun(100, func() { dst.Reset(); copyResponseHeaders(&dst, &src) }); n > 0 {
		t.Errorf("copyResponseHeaders allocates %.0f times per copy into a reused header", n)
	}
}

// Server-Timing reads as fmt's "%.3f" of the milliseconds did, and is set
// without fmt.
func TestServerTimingFormat(t *testing.T) {
	for _, d := range []time.Duration{0, 999 * time.Nanosecond, time.Microsecond, 1234567 * time.Nanosecond, 2 * time.Second, 90 * time.Minute} {
		var h fasthttp.ResponseHeader
		setServerTiming(&h, d)
		want := fmt.Sprintf("hookgate;dur=%.3f", float64(d.Microseconds())/1000)
		if got := string(h.Peek("Server-Timing")); got != want {
			t.Errorf("%v: Server-Timing %q, want %q", d, got, want)
		}
	}
}
