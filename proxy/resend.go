package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/interceptors"
)

// offerResend gives an exchange that may ask the upstream again (on_block:
// retry) a way to do so. The client's request line and headers are copied
// now, while the handler may still touch the request; the copy outlives
// the handler for the stream writer to use.
func (s *Server) offerResend(ctx *fasthttp.RequestCtx, x *exchange, ex interceptors.Exchange) {
	r, ok := ex.(interceptors.Resender)
	if !ok || !r.WantsResend() {
		return
	}
	in := &fasthttp.Request{}
	ctx.Request.Header.CopyTo(&in.Header)
	ctx.Request.URI().CopyTo(in.URI())
	r.SetResend(func(_ context.Context, body []byte) (io.ReadCloser, error) {
		return s.resend(x, in, body)
	})
}

// resend is a new request to the upstream with the client's headers and a
// body of hookgate's making. It is only ever used after a complete
// response, never as a replay of a request whose response was cut.
func (s *Server) resend(x *exchange, in *fasthttp.Request, body []byte) (io.ReadCloser, error) {
	up := x.up
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	up.prepare(req, in, x.upPath, body, true, x.apiKey)
	x.injectResend(req)
	err := up.client.Do(req, resp)
	fasthttp.ReleaseRequest(req)
	if err != nil {
		fasthttp.ReleaseResponse(resp)
		return nil, fmt.Errorf("resend to upstream %s: %w", up.name, err)
	}
	if status := resp.StatusCode(); status < 200 || status > 299 {
		detail, _ := readCapped(resp.BodyStream(), 4<<10)
		closeStream(resp, nil)
		fasthttp.ReleaseResponse(resp)
		return nil, fmt.Errorf("resend to upstream %s: status %d: %s", up.name, status, bytes.TrimSpace(detail))
	}
	decoded, _, err := decodeBody(resp.BodyStream(), resp.Header.ContentEncoding())
	if err != nil {
		closeStream(resp, err)
		fasthttp.ReleaseResponse(resp)
		return nil, err
	}
	return &upstreamBody{r: decoded, resp: resp}, nil
}

// upstreamBody is a resent response's body; Close releases it, discarding
// the connection when the body was not read to its end.
type upstreamBody struct {
	r    io.Reader
	resp *fasthttp.Response
	err  error
	eof  bool
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.eof = true
	} else if err != nil {
		b.err = err
	}
	return n, err
}

func (b *upstreamBody) Close() error {
	if b.resp == nil {
		return nil
	}
	reason := b.err
	if reason == nil && !b.eof {
		reason = errClientGone
	}
	closeStream(b.resp, reason)
	fasthttp.ReleaseResponse(b.resp)
	b.resp = nil
	return nil
}
