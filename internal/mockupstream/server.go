package mockupstream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Request is one request as the mock received it. It is a copy: a handler
// may keep it, and Requests returns the same values.
type Request struct {
	// Seq is the arrival order, from 0.
	Seq int
	// Method is the HTTP method, e.g. "POST".
	Method string
	// Path is the decoded path, e.g. "/v1/chat/completions".
	Path string
	// URI is the request URI as sent (path and query, undecoded).
	URI string
	// Header holds the request headers. It is nil when the server was built
	// with Options.NoRecord, to keep the benchmark's hot path lean.
	Header http.Header
	// Body is a copy of the request body.
	Body []byte
	// Received is when the handler started.
	Received time.Time
}

// HandlerFunc decides the response to a request that found the queue empty.
type HandlerFunc func(*Request) Response

// Always returns a handler that answers every request with r.
func Always(r Response) HandlerFunc { return func(*Request) Response { return r } }

// Options configure New. The zero value listens on 127.0.0.1:0 and records
// every request.
type Options struct {
	// Addr is the listen address; empty means 127.0.0.1 on a free port.
	Addr string
	// NoRecord keeps no request (Requests returns nothing) and skips the
	// header copy, for benchmarks.
	NoRecord bool
}

// TB is the part of testing.TB that Start needs; *testing.T and *testing.B
// satisfy it. Taking an interface keeps the testing package out of the
// binaries that embed the mock (the demo, the benchmark).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Server is a running mock upstream. Its methods are safe for concurrent use.
type Server struct {
	ln       net.Listener
	srv      *fasthttp.Server
	url      string
	noRecord bool

	closing   chan struct{} // closed by Close: releases stalls, hangs and waits
	closeOnce sync.Once
	served    chan struct{} // closed when Serve has returned

	connsWG sync.WaitGroup // one per accepted connection until fasthttp closes it
	connsMu sync.Mutex
	conns   map[net.Conn]struct{} // the raw connections, for Close

	seq     atomic.Int64
	mu      sync.Mutex
	queue   []Response
	handler HandlerFunc
	reqs    []*Request
}

// Start starts a mock on loopback for a test and closes it when the test
// ends. It fails the test if the listener cannot be opened.
func Start(t TB) *Server {
	t.Helper()
	s, err := New(Options{})
	if err != nil {
		t.Fatalf("mockupstream: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// New starts a mock with the given options. The caller must Close it.
func New(opts Options) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mockupstream: listen %s: %w", addr, err)
	}
	s := &Server{
		noRecord: opts.NoRecord,
		closing:  make(chan struct{}),
		served:   make(chan struct{}),
		conns:    make(map[net.Conn]struct{}),
		url:      "http://" + ln.Addr().String(),
	}
	s.ln = &trackingListener{Listener: ln, s: s}
	s.srv = &fasthttp.Server{
		Handler:               s.serve,
		Name:                  "mockupstream",
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		ReadBufferSize:        16 << 10,
		MaxRequestBodySize:    64 << 20,
		// Scripted cuts make fasthttp report write errors; they are the
		// point, not news.
		Logger: quietLogger{},
	}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(s.ln)
	}()
	return s, nil
}

// URL is the base URL, e.g. "http://127.0.0.1:40123" (no trailing slash).
func (s *Server) URL() string { return s.url }

// Addr is the listen address, e.g. "127.0.0.1:40123".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Enqueue appends responses to the queue; each request takes the oldest.
func (s *Server) Enqueue(rs ...Response) {
	s.mu.Lock()
	s.queue = append(s.queue, rs...)
	s.mu.Unlock()
}

// Handle sets the function that answers requests once the queue is empty.
// Without one, such a request gets a 500 in the OpenAI error shape whose
// message says nothing was scripted.
func (s *Server) Handle(h HandlerFunc) {
	s.mu.Lock()
	s.handler = h
	s.mu.Unlock()
}

// Pending is the number of queued responses not yet served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Reset forgets the recorded requests and the queue; the handler stays.
func (s *Server) Reset() {
	s.mu.Lock()
	s.reqs, s.queue = nil, nil
	s.mu.Unlock()
}

// Close stops the server: stalled and hanging responses are cut, open
// connections are closed, and Close returns once fasthttp has let go of
// them (or after five seconds). It is safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		_ = s.ln.Close()
		s.connsMu.Lock()
		for c := range s.conns {
			_ = c.Close()
		}
		s.connsMu.Unlock()
		done := make(chan struct{})
		go func() {
			<-s.served
			s.connsWG.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	})
}

func (s *Server) serve(ctx *fasthttp.RequestCtx) {
	req := s.record(ctx)
	r := s.next(req)

	if r.Fault == Hang {
		<-s.closing
		ctx.SetConnectionClose()
		return
	}
	if r.Latency > 0 && !sleep(r.Latency, s.closing) {
		ctx.SetConnectionClose()
		return
	}

	status := r.Status
	if status == 0 {
		status = http.StatusOK
	}
	ctx.SetStatusCode(status)
	streamed := r.Stream || r.Fault != NoFault
	for k, vs := range r.Header {
		for _, v := range vs {
			ctx.Response.Header.Add(k, v)
		}
	}
	if len(ctx.Response.Header.ContentType()) == 0 {
		if r.Stream {
			ctx.Response.Header.SetContentType("text/event-stream")
		} else {
			ctx.Response.Header.SetContentType("application/json")
		}
	}
	if !streamed {
		// The body is never modified (Response documents it), so fasthttp
		// may send it without a copy.
		ctx.Response.SetBodyRaw(r.Body)
		return
	}
	body := r.Body
	if r.Fault != NoFault {
		body = body[:min(max(r.FaultAt, 0), len(body))]
	}
	// A reader rather than SetBodyStreamWriter: fasthttp writes and flushes
	// one HTTP chunk per Read, so each piece is exactly one write on the
	// wire (a stream writer goes through a pipe that may merge pieces), no
	// goroutine is spent per response, and a Read error lets a Cut close
	// the connection without the terminating chunk.
	ctx.Response.SetBodyStream(&bodyReader{
		rest:     body,
		k:        newChunker(r.Chunking),
		interval: r.Chunking.Interval,
		fault:    r.Fault,
		closing:  s.closing,
	}, -1)
}

func (s *Server) record(ctx *fasthttp.RequestCtx) *Request {
	req := &Request{
		Seq:      int(s.seq.Add(1) - 1),
		Method:   string(ctx.Method()),
		Path:     string(ctx.Path()),
		URI:      string(ctx.RequestURI()),
		Body:     bytes.Clone(ctx.PostBody()),
		Received: time.Now(),
	}
	if s.noRecord {
		return req
	}
	req.Header = make(http.Header)
	for k, v := range ctx.Request.Header.All() {
		req.Header.Add(string(k), string(v))
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	return req
}

func (s *Server) next(req *Request) Response {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue[0] = Response{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	h := s.handler
	s.mu.Unlock()
	if h != nil {
		return h(req)
	}
	return Error(http.StatusInternalServerError, "mockupstream_unscripted",
		fmt.Sprintf("mockupstream: no response scripted for %s %s", req.Method, req.Path))
}

// errCut ends a body on purpose; fasthttp then closes the connection
// without the terminating chunk.
var errCut = errors.New("mockupstream: body cut by script")

// bodyReader hands fasthttp one piece per Read (or less, when the piece is
// larger than fasthttp's buffer), piece i being due Interval*i after the
// first.
type bodyReader struct {
	rest     []byte
	piece    int // bytes of the current piece not yet read
	started  bool
	k        *chunker
	interval time.Duration
	due      time.Time // when the next piece is due, with an interval
	fault    Fault
	closing  <-chan struct{}
}

func (r *bodyReader) Read(p []byte) (int, error) {
	if r.piece == 0 {
		if len(r.rest) == 0 {
			return 0, r.end()
		}
		if r.interval > 0 {
			// Pieces are due on a fixed schedule from the first one, so that
			// timer jitter does not add up over a long stream.
			if r.started {
				if d := time.Until(r.due); d > 0 && !sleep(d, r.closing) {
					return 0, errCut
				}
				r.due = r.due.Add(r.interval)
			} else {
				r.due = time.Now().Add(r.interval)
			}
		}
		r.started = true
		r.piece = r.k.next(r.rest)
	}
	n := copy(p[:min(len(p), r.piece)], r.rest)
	r.rest = r.rest[n:]
	r.piece -= n
	return n, nil
}

func (r *bodyReader) end() error {
	switch r.fault {
	case Cut:
		return errCut
	case Stall:
		<-r.closing
		return errCut
	}
	return io.EOF
}

// sleep waits d, or less if closing is closed; it reports whether it waited
// the whole time.
func sleep(d time.Duration, closing <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-closing:
		return false
	}
}

// trackingListener remembers the open connections so that Close can cut
// them (fasthttp's Shutdown waits for them instead, polling every 100 ms).
type trackingListener struct {
	net.Listener
	s *Server
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	s := l.s
	s.connsMu.Lock()
	select {
	case <-s.closing: // accepted while Close was cutting connections
		s.connsMu.Unlock()
		_ = c.Close()
		return nil, net.ErrClosed
	default:
	}
	s.conns[c] = struct{}{}
	s.connsWG.Add(1)
	s.connsMu.Unlock()
	return &trackedConn{Conn: c, s: s}, nil
}

type trackedConn struct {
	net.Conn
	s    *Server
	once sync.Once
}

// Close is called by fasthttp when it is done with the connection.
func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.s.connsMu.Lock()
		delete(c.s.conns, c.Conn)
		c.s.connsMu.Unlock()
		c.s.connsWG.Done()
	})
	return err
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
