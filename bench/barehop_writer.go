package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/valyala/fasthttp"
)

// BareHopWriter is a reference for diagnosis, not a floor: the bare hop,
// except that a stream goes out through fasthttp's SetBodyStreamWriter (a
// goroutine writing into an in-memory pipe that the server copies to the
// socket) instead of SetBodyStream (the server reading the upstream body
// itself). What it adds over the bare hop is the cost of that hand-off
// alone, which every proxy built on SetBodyStreamWriter pays per chunk.
func BareHopWriter() Target {
	return Target{Name: "bare-hop-sw", Start: StartBareHopWriter}
}

// StartBareHopWriter starts BareHopWriter's hop on 127.0.0.1.
func StartBareHopWriter(upstreamURL string, _ *Scenario) (string, func(), error) {
	u, err := url.Parse(upstreamURL)
	if err != nil || u.Host == "" {
		return "", nil, fmt.Errorf("bench: bare hop (writer): upstream %q: %v", upstreamURL, err)
	}
	client := &fasthttp.HostClient{
		Addr:                          u.Host,
		StreamResponseBody:            true,
		MaxConns:                      1 << 14,
		MaxIdleConnDuration:           30 * time.Second,
		ReadBufferSize:                16 << 10,
		NoDefaultUserAgentHeader:      true,
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
	}
	serve := func(ctx *fasthttp.RequestCtx) {
		resp := fasthttp.AcquireResponse()
		if err := client.Do(&ctx.Request, resp); err != nil {
			fasthttp.ReleaseResponse(resp)
			ctx.Error("bare hop: upstream: "+err.Error(), fasthttp.StatusBadGateway)
			return
		}
		resp.Header.CopyTo(&ctx.Response.Header)
		stream := resp.BodyStream()
		if stream == nil || resp.Header.ContentLength() >= 0 {
			if stream != nil {
				b, err := io.ReadAll(stream)
				_ = resp.CloseBodyStream()
				if err != nil {
					fasthttp.ReleaseResponse(resp)
					ctx.Error("bare hop: upstream: "+err.Error(), fasthttp.StatusBadGateway)
					return
				}
				ctx.Response.SetBody(b)
			} else {
				ctx.Response.SetBody(resp.Body())
			}
			fasthttp.ReleaseResponse(resp)
			return
		}
		ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
			buf := make([]byte, 32<<10)
			var rerr error
			for {
				n, err := stream.Read(buf)
				if n > 0 {
					if _, werr := w.Write(buf[:n]); werr != nil {
						rerr = werr
						break
					}
					if werr := w.Flush(); werr != nil {
						rerr = werr
						break
					}
				}
				if err != nil {
					if !errors.Is(err, io.EOF) {
						rerr = err
					}
					break
				}
			}
			if rc, ok := stream.(fasthttp.ReadCloserWithError); ok && rerr != nil {
				_ = rc.CloseWithError(rerr)
			} else {
				_ = resp.CloseBodyStream()
			}
			fasthttp.ReleaseResponse(resp)
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("bench: bare hop (writer): %w", err)
	}
	srv := &fasthttp.Server{
		Handler:                       serve,
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
		client.CloseIdleConnections()
	}
	return "http://" + ln.Addr().String(), stop, nil
}
