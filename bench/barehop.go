package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/valyala/fasthttp"
)

// StartBareHop starts the reference hop: a fasthttp server on 127.0.0.1
// that forwards every request to upstreamURL with a fasthttp client and
// relays the response as it arrives. It parses no body, runs no hook and
// rewrites nothing but what fasthttp itself does to headers, so the latency
// it adds over direct is the floor for any proxy on this machine.
func StartBareHop(upstreamURL string, _ *Scenario) (string, func(), error) {
	u, err := url.Parse(upstreamURL)
	if err != nil || u.Host == "" {
		return "", nil, fmt.Errorf("bench: bare hop: upstream %q: %v", upstreamURL, err)
	}
	h := &bareHop{client: &fasthttp.HostClient{
		Addr:                          u.Host,
		StreamResponseBody:            true,
		MaxConns:                      1 << 14,
		MaxIdleConnDuration:           30 * time.Second,
		ReadBufferSize:                16 << 10,
		NoDefaultUserAgentHeader:      true,
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("bench: bare hop: %w", err)
	}
	srv := &fasthttp.Server{
		Handler:                       h.serve,
		NoDefaultServerHeader:         true,
		NoDefaultContentType:          true,
		DisableHeaderNamesNormalizing: true,
		ReadBufferSize:                16 << 10,
		MaxRequestBodySize:            32 << 20,
		Logger:                        quietLogger{},
	}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.ShutdownWithContext(ctx)
		h.client.CloseIdleConnections()
	}
	return "http://" + ln.Addr().String(), stop, nil
}

type bareHop struct {
	client *fasthttp.HostClient
}

func (h *bareHop) serve(ctx *fasthttp.RequestCtx) {
	resp := fasthttp.AcquireResponse()
	// The incoming request goes upstream as it is; the HostClient dials its
	// own Addr whatever the Host header says.
	if err := h.client.Do(&ctx.Request, resp); err != nil {
		fasthttp.ReleaseResponse(resp)
		ctx.Error("bare hop: upstream: "+err.Error(), fasthttp.StatusBadGateway)
		return
	}
	resp.Header.CopyTo(&ctx.Response.Header)
	stream := resp.BodyStream()
	if stream == nil {
		ctx.Response.SetBody(resp.Body())
		fasthttp.ReleaseResponse(resp)
		return
	}
	size := resp.Header.ContentLength()
	if size < 0 {
		size = -1 // chunked or read-until-close upstream: chunked downstream
	}
	// fasthttp writes and flushes each Read as it comes, and closes the
	// reader when done (or when the client is gone), which releases resp.
	ctx.Response.SetBodyStream(&hopBody{resp: resp, r: stream}, size)
}

// hopBody relays an upstream body stream and releases the upstream response
// when fasthttp closes it.
type hopBody struct {
	resp *fasthttp.Response
	r    io.Reader
	err  error // first read error, io.EOF on a clean end
}

func (b *hopBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && b.err == nil {
		b.err = err
	}
	return n, err
}

var errRelayAborted = errors.New("bench: bare hop: relay ended before the upstream body did")

// Close returns the upstream connection to the pool only after a clean end:
// a stream that broke, or that the client left, closes its connection
// instead of going back to the pool half read.
func (b *hopBody) Close() error {
	err := b.err
	switch {
	case errors.Is(err, io.EOF):
		err = nil
	case err == nil:
		err = errRelayAborted
	}
	if rc, ok := b.r.(fasthttp.ReadCloserWithError); ok && err != nil {
		_ = rc.CloseWithError(err)
	} else {
		_ = b.resp.CloseBodyStream()
	}
	fasthttp.ReleaseResponse(b.resp)
	return nil
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
