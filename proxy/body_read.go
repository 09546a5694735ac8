package proxy

import (
	"errors"
	"io"
	"math"
	"math/bits"
	"sync"

	"github.com/valyala/fasthttp"
)

// Request bodies are read by hookgate, not by fasthttp: the servers run
// with StreamRequestBody, and readBody reads the body from its stream into
// a buffer that grows as bytes arrive. fasthttp's own reading sizes the
// buffer from Content-Length before a byte of the body has come, so a
// client announcing 32 MiB and sending one byte would hold 32 MiB.
// Content-Length is only an upper bound: the buffer never grows past it, nor past
// twice what has arrived. (fasthttp still reads the first 8 KiB of a body,
// at most, into its own pooled buffer before the handler runs.)

var (
	errBodyTooLarge = errors.New("request body over the size limit")
	errBodyBudget   = errors.New("request body bytes in flight over limits.max_inflight_request_bytes")
)

// readBody reads the body of ctx's request, at most limit bytes (0: no
// limit), counting each byte under budget as it arrives. The body stays
// valid, and counted, until fasthttp resets the request, after the
// response (stream included) has been written; it is also set as the
// request's body, so ctx.Request.Body() returns it. On an error the
// bytes are given back at once.
func readBody(ctx *fasthttp.RequestCtx, limit int, budget *bodyBudget) ([]byte, error) {
	stream := ctx.Request.BodyStream()
	if stream == nil {
		// Not streamed: a request without a body, or a server that
		// reads bodies itself.
		return ctx.Request.Body(), nil
	}
	cl := ctx.Request.Header.ContentLength()
	if limit > 0 && cl > limit {
		return nil, errBodyTooLarge
	}
	if cl == 0 {
		ctx.Request.SetBodyRaw(nil)
		return nil, nil
	}
	// One byte past the limit shows a body over it; one past
	// Content-Length lets the end be read.
	bound := math.MaxInt
	if limit > 0 {
		bound = limit + 1
	}
	if cl > 0 && cl < bound {
		bound = cl + 1
	}
	h := &heldBody{budget: budget}
	ctx.SetUserValue(heldBodyKey{}, h)
	for {
		if h.buf == nil || len(*h.buf) == cap(*h.buf) {
			if !h.grow(bound) {
				h.release()
				return nil, errBodyTooLarge
			}
		}
		b := *h.buf
		n, err := stream.Read(b[len(b):cap(b)])
		if n > 0 {
			if !budget.take(n) {
				h.release()
				return nil, errBodyBudget
			}
			h.held += n
			*h.buf = b[:len(b)+n]
			if limit > 0 && len(*h.buf) > limit {
				h.release()
				return nil, errBodyTooLarge
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			h.release()
			return nil, err
		}
	}
	body := *h.buf
	ctx.Request.SetBodyRaw(body)
	return body, nil
}

// heldBody is a request body read by readBody: its buffer and the bytes it
// holds under the budget. fasthttp closes it, as a user value, when it
// resets the request.
type heldBody struct {
	buf    *[]byte
	budget *bodyBudget
	held   int
}

type heldBodyKey struct{}

// grow gives the buffer room for more: twice its size, at most bound. It
// reports false when the buffer is already at bound.
func (h *heldBody) grow(bound int) bool {
	want := firstBodyBuffer
	if h.buf != nil {
		if cap(*h.buf) >= bound {
			return false
		}
		want = 2 * cap(*h.buf)
	}
	want = min(want, bound)
	nb := getBodyBuffer(want)
	if h.buf != nil {
		*nb = append(*nb, *h.buf...)
		putBodyBuffer(h.buf)
	}
	h.buf = nb
	return true
}

// Close releases the body when fasthttp resets the request.
func (h *heldBody) Close() error {
	h.release()
	return nil
}

// release gives the buffer back to its pool and the bytes back to the
// budget, once.
func (h *heldBody) release() {
	if h.buf != nil {
		putBodyBuffer(h.buf)
		h.buf = nil
	}
	h.budget.give(h.held)
	h.held = 0
}

// Body buffers are pooled by size class, powers of two from 512 bytes to
// 1 MiB, so that a small request never holds a buffer a large one grew
// (a stream holds its request's body to its end), and as *[]byte so that
// Put does not allocate. Larger buffers are left to the collector. A body
// starts in 4 KiB, or in the smallest class that holds its Content-Length.
const (
	minBodyBuffer       = 512
	firstBodyBuffer     = 4 << 10
	maxPooledBodyBuffer = 1 << 20
	bodyBufferClasses   = 12 // 512 << 0..11
)

var bodyBuffers [bodyBufferClasses]sync.Pool

// bodyClass is the class of a buffer of capacity size, if it is one.
func bodyClass(size int) (int, bool) {
	if size < minBodyBuffer || size > maxPooledBodyBuffer || size&(size-1) != 0 {
		return 0, false
	}
	return bits.TrailingZeros(uint(size)) - bits.TrailingZeros(uint(minBodyBuffer)), true
}

// getBodyBuffer is an empty buffer of at least want bytes' capacity: the
// smallest class that holds want, or exactly want past the largest.
func getBodyBuffer(want int) *[]byte {
	size := minBodyBuffer
	for size < want && size < maxPooledBodyBuffer {
		size <<= 1
	}
	if size < want {
		b := make([]byte, 0, want)
		return &b
	}
	class, _ := bodyClass(size)
	if v := bodyBuffers[class].Get(); v != nil {
		return v.(*[]byte)
	}
	b := make([]byte, 0, size)
	return &b
}

func putBodyBuffer(b *[]byte) {
	if class, ok := bodyClass(cap(*b)); ok {
		*b = (*b)[:0]
		bodyBuffers[class].Put(b)
	}
}
