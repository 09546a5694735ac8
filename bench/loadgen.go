package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// sample is one measured request. Durations count from just before the
// request was handed to the client; a zero ttfc or ttTool means the
// response carried no such delta.
type sample struct {
	done   bool // the request was made (phases stop early on a deadline)
	err    string
	total  time.Duration
	ttfb   time.Duration
	ttfc   time.Duration
	ttTool time.Duration
	// ttFinish is the time to the first non-null finish_reason: the moment
	// a held tool call can be known complete and released (the finish
	// chunk is what completes a call in OpenAI-shaped streams).
	ttFinish time.Duration
	lag      time.Duration // open loop: how late the generator sent it
}

func (s *sample) ok() bool { return s.done && s.err == "" }

// client sends one scenario's requests to one target over keep-alive
// connections and measures them while reading the body as it streams in.
type client struct {
	hc      *fasthttp.HostClient
	uri     string
	target  *Target
	sc      *Scenario
	timeout time.Duration
	// sessions, when positive, spreads requests over that many session
	// ids (X-Session-Id).
	sessions int
	seq      atomic.Uint64
	toolKey  []byte // marks the first tool call (Scenario.ToolKey)
}

func newClient(baseURL string, t *Target, sc *Scenario, timeout time.Duration) (*client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("bench: target %s: base URL %q: %v", t.Name, baseURL, err)
	}
	return &client{
		hc: &fasthttp.HostClient{
			Addr:                     u.Host,
			StreamResponseBody:       true,
			MaxConns:                 1 << 14,
			MaxIdleConnDuration:      30 * time.Second,
			ReadBufferSize:           16 << 10,
			NoDefaultUserAgentHeader: true,
			DisablePathNormalizing:   true,
		},
		uri:     baseURL + sc.path(),
		target:  t,
		sc:      sc,
		timeout: timeout,
		toolKey: sc.toolKey(),
	}, nil
}

func (c *client) close() { c.hc.CloseIdleConnections() }

var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

var (
	keyContent   = []byte(`"content"`)
	keyToolCalls = []byte(`"tool_calls"`)
)

// do sends one request and reads the whole response.
func (c *client) do() sample {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(c.uri)
	req.Header.SetMethod(c.sc.method())
	req.Header.SetContentType("application/json")
	for k, v := range c.sc.Header {
		req.Header.Set(k, v)
	}
	if c.sessions > 0 {
		var b [32]byte
		id := strconv.AppendUint(append(b[:0], "hgbench-"...), c.seq.Add(1)%uint64(c.sessions), 10)
		req.Header.SetBytesV("X-Session-Id", id)
	}
	req.SetBodyRaw(c.sc.Body)

	bp := bodyBufs.Get().(*[]byte)
	defer bodyBufs.Put(bp)
	buf := (*bp)[:0]

	var s sample
	s.done = true
	streamed := c.sc.Streamed()
	start := time.Now()
	if err := c.hc.DoDeadline(req, resp, start.Add(c.timeout)); err != nil {
		s.err = "request: " + err.Error()
		s.total = time.Since(start)
		return s
	}
	body := resp.BodyStream()
	if body == nil { // no body at all (e.g. 204)
		s.ttfb = time.Since(start)
		buf = append(buf, resp.Body()...)
	} else {
		contentFrom, toolFrom, finishFrom := 0, 0, 0
		var readErr error
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := body.Read(buf[len(buf):cap(buf)])
			if n > 0 {
				now := time.Now()
				if s.ttfb == 0 {
					s.ttfb = now.Sub(start)
				}
				buf = buf[:len(buf)+n]
				if streamed && s.ttfc == 0 {
					var found bool
					found, contentFrom = findContent(buf, contentFrom)
					if found {
						s.ttfc = now.Sub(start)
					}
				}
				if streamed && s.ttTool == 0 {
					var found bool
					found, toolFrom = findKey(buf, toolFrom, c.toolKey)
					if found {
						s.ttTool = now.Sub(start)
					}
				}
				if streamed && s.ttFinish == 0 {
					var found bool
					found, finishFrom = findStringValue(buf, finishFrom, keyFinishReason)
					if found {
						s.ttFinish = now.Sub(start)
					}
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				break
			}
		}
		if rc, ok := body.(fasthttp.ReadCloserWithError); ok && readErr != nil {
			_ = rc.CloseWithError(readErr)
		} else {
			_ = resp.CloseBodyStream()
		}
		if readErr != nil {
			s.err = "body: " + readErr.Error()
		}
	}
	s.total = time.Since(start)
	*bp = buf[:0]
	if s.err == "" {
		if err := c.sc.check(c.target.Loose, resp.StatusCode(), buf); err != nil {
			s.err = err.Error()
		}
	}
	return s
}

// findKey looks for key in b from offset from. It returns whether it was
// found and, if not, where to resume once b has grown (so that a key split
// across two reads is still found).
func findKey(b []byte, from int, key []byte) (bool, int) {
	if bytes.Contains(b[from:], key) {
		return true, from
	}
	return false, max(from, len(b)-len(key)+1)
}

// findContent looks for the first non-empty content string, `"content":"x`
// (spaces allowed around the colon), in b from offset from. `"content":""`
// and `"content":null`, which open most streams, do not count. Like
// findKey, it returns where to resume when not found.
func findContent(b []byte, from int) (bool, int) {
	for {
		i := bytes.Index(b[from:], keyContent)
		if i < 0 {
			return false, max(from, len(b)-len(keyContent)+1)
		}
		at := from + i
		j := skipSpace(b, at+len(keyContent))
		if j < len(b) && b[j] == ':' {
			j = skipSpace(b, j+1)
		} else if j < len(b) {
			from = at + 1
			continue
		}
		switch {
		case j+1 >= len(b):
			return false, at // the value is not all here yet
		case b[j] == '"' && b[j+1] != '"':
			return true, at
		default:
			from = at + 1
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
