package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The three kinds of attack connection of the exhaustion test, each held
// open by a client that sends (almost) nothing, and the timeout of
// hookgate's that must close it.
const (
	// KindHeaderDrip sends its request head one byte every drip interval
	// and never finishes it: timeouts.client_header.
	KindHeaderDrip = "header-drip"
	// KindIdle sends one ordinary request, reads the answer and then
	// keeps the connection open without a second request:
	// timeouts.client_idle.
	KindIdle = "idle-keepalive"
	// KindFakeBody announces a body of Content-Length bytes (32 MiB less
	// 16 bytes, just under limits.max_request_bytes' default) and sends
	// one: timeouts.client_body_progress, and memory committed only as
	// bytes arrive.
	KindFakeBody = "fake-body"
)

// attackConn is one attack connection. Its clock starts when the
// timeout that must close it starts to run: the first byte of the head
// (header-drip), the end of the answer read (idle), the last body byte
// sent (fake-body).
type attackConn struct {
	kind  string
	conn  net.Conn
	clock time.Time
	// setupErr says why the connection could not be set up (dial, write,
	// the idle connection's one request); it is then not an attack
	// connection.
	setupErr string
	// closedAt is when the connection was seen closed by hookgate (unix
	// ns, 0: not closed); ours marks those the test closed itself at the
	// end of the bound.
	closedAt atomic.Int64
	ours     atomic.Bool
	// status is the first line of what hookgate wrote after the
	// connection's attack started, if anything (e.g. "HTTP/1.1 408
	// Request Timeout").
	status string
	done   chan struct{}
}

// open reports whether the connection is set up and not closed yet.
func (a *attackConn) open() bool {
	return a.setupErr == "" && a.closedAt.Load() == 0
}

// closeAfter is the time from the clock's start to hookgate's close, or
// -1 when hookgate did not close it.
func (a *attackConn) closeAfter() time.Duration {
	at := a.closedAt.Load()
	if at == 0 || a.setupErr != "" {
		return -1
	}
	return time.Unix(0, at).Sub(a.clock)
}

// dripHead is the request head a header-drip connection sends one byte
// at a time; past its end it sends 'a' after 'a' in the X-Drip value,
// never the blank line that ends the head.
const dripHead = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Drip: "

// attack opens and follows the attack connections against one address.
type attack struct {
	addr     string
	interval time.Duration // header-drip: between two bytes
	bodyLen  int64         // fake-body: the Content-Length announced
	request  []byte        // idle: the one request sent, a whole HTTP/1.1 request
	// mayOpenBody is asked before each fake-body connection; false
	// stops opening them (the RSS safety ceiling).
	mayOpenBody func() bool
	dialSlots   chan struct{}

	mu    sync.Mutex
	conns []*attackConn
	// setUpIn is, per kind, how long its connections took to be set up,
	// from the call to open to the last one's attack started.
	setUpIn map[string]time.Duration
	skipped atomic.Int64 // fake bodies not sent: the ceiling was reached
	wg      sync.WaitGroup
}

// attackDialParallel bounds dials in progress at once: thousands of
// simultaneous SYNs overflow a listen backlog, which would measure the
// kernel, not hookgate.
const attackDialParallel = 128

func newAttack(addr string, interval time.Duration, bodyLen int64, request []byte, mayOpenBody func() bool) *attack {
	return &attack{addr: addr, interval: interval, bodyLen: bodyLen, request: request, mayOpenBody: mayOpenBody,
		dialSlots: make(chan struct{}, attackDialParallel), setUpIn: map[string]time.Duration{}}
}

// open opens n connections of kind, all at once (dials bounded by
// attackDialParallel), and returns when every one is set up or failed.
func (at *attack) open(ctx context.Context, kind string, n int) {
	start := time.Now()
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		at.mu.Lock()
		at.setUpIn[kind] = time.Since(start)
		at.mu.Unlock()
	}()
	for range n {
		if kind == KindFakeBody && at.mayOpenBody != nil && !at.mayOpenBody() {
			at.skipped.Add(1)
			continue
		}
		a := &attackConn{kind: kind, done: make(chan struct{})}
		at.mu.Lock()
		at.conns = append(at.conns, a)
		at.mu.Unlock()
		wg.Add(1)
		at.dialSlots <- struct{}{}
		go func() {
			defer wg.Done()
			at.setUp(ctx, a)
		}()
		if kind == KindFakeBody {
			// Each fake body's allocation shows in the RSS before the
			// next is opened, for the ceiling to act on.
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// setUp dials a, starts its attack and the goroutines that follow it.
func (at *attack) setUp(ctx context.Context, a *attackConn) {
	d := net.Dialer{Timeout: 10 * time.Second}
	c, err := d.DialContext(ctx, "tcp", at.addr)
	<-at.dialSlots // the slot bounds dials, not what follows
	if err != nil {
		a.setupErr = "dial: " + err.Error()
		close(a.done)
		return
	}
	a.conn = c
	_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReaderSize(c, 4<<10)
	switch a.kind {
	case KindHeaderDrip:
		_, err = c.Write([]byte{dripHead[0]})
		a.clock = time.Now()
	case KindFakeBody:
		head := "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.FormatInt(at.bodyLen, 10) + "\r\n\r\n{"
		_, err = io.WriteString(c, head)
		a.clock = time.Now()
	case KindIdle:
		err = oneRequest(c, br, at.request)
		a.clock = time.Now()
	}
	if err != nil {
		a.setupErr = a.kind + ": " + err.Error()
		_ = c.Close()
		close(a.done)
		return
	}
	at.wg.Add(1)
	go func() {
		defer at.wg.Done()
		a.watch(br)
	}()
	if a.kind == KindHeaderDrip {
		at.wg.Add(1)
		go func() {
			defer at.wg.Done()
			a.drip(at.interval)
		}()
	}
}

// oneRequest sends req on c and reads its whole answer, which must be a
// 200 that leaves the connection open.
func oneRequest(c net.Conn, br *bufio.Reader, req []byte) error {
	if _, err := c.Write(req); err != nil {
		return err
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_ = c.SetReadDeadline(time.Time{})
	switch {
	case err != nil:
		return fmt.Errorf("answer body: %w", err)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("answer: status %d", resp.StatusCode)
	case resp.Close:
		return fmt.Errorf("answer: hookgate closes the connection after it (Connection: close)")
	}
	return nil
}

// watch reads the connection until it ends: hookgate closed it (EOF or
// a reset), or the test did at the end of the bound (ours). It keeps the
// first line hookgate wrote.
func (a *attackConn) watch(br *bufio.Reader) {
	defer close(a.done)
	var first []byte
	buf := make([]byte, 512)
	for {
		n, err := br.Read(buf)
		if n > 0 && len(first) < 64 {
			first = append(first, buf[:min(n, 64-len(first))]...)
		}
		if err != nil {
			if !a.ours.Load() {
				a.closedAt.Store(time.Now().UnixNano())
			}
			break
		}
	}
	if line, _, _ := bytes.Cut(first, []byte("\r\n")); len(line) > 0 {
		a.status = string(line)
	}
}

// drip writes the next byte of the head every interval (the first after a
// random part of it, so that a thousand connections do not write in the
// same millisecond) until the connection is closed.
func (a *attackConn) drip(interval time.Duration) {
	next := 1
	wait := time.Duration(rand.Int64N(int64(interval))) + 1
	for {
		select {
		case <-a.done:
			return
		case <-time.After(wait):
		}
		wait = interval
		b := byte('a')
		if next < len(dripHead) {
			b = dripHead[next]
		}
		next++
		_ = a.conn.SetWriteDeadline(time.Now().Add(interval))
		if _, err := a.conn.Write([]byte{b}); err != nil {
			return // closed: watch sees it too
		}
	}
}

// openCount is the number of attack connections set up and still open.
func (at *attack) openCount() int {
	at.mu.Lock()
	defer at.mu.Unlock()
	n := 0
	for _, a := range at.conns {
		if a.open() {
			n++
		}
	}
	return n
}

// closeAll closes the connections still open (marking them as closed by
// the test, not by hookgate) and waits for their goroutines.
func (at *attack) closeAll() {
	at.mu.Lock()
	conns := at.conns
	at.mu.Unlock()
	for _, a := range conns {
		if a.open() {
			a.ours.Store(true)
			_ = a.conn.Close()
		}
	}
	at.wg.Wait()
	for _, a := range conns {
		<-a.done
	}
}
