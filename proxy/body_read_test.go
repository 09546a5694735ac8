package proxy

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/tidwall/gjson"
)

// Connections that announce a body just under limits.max_request_bytes and
// send a little of it cost hookgate what arrived, not what was announced:
// 16 of them, each announcing 32 MiB, allocate far less than 16 × 32 MiB,
// whether what they sent waits in fasthttp's read-ahead of a body's first
// 8 KiB or in hookgate's own buffer.
func TestAnnouncedBodyIsNotPreallocated(t *testing.T) {
	const conns, announced = 16, 33554416
	st := serveClients(t, okUpstream, func(c *Config) {
		c.Limits.MaxRequestBytes = 32 << 20
		c.Limits.MaxInflightRequestBytes = 1 << 30
	}, Options{})
	// Warm the server (pools, first-use allocations).
	c, _ := net.Dial("tcp", st.addr)
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	_, _ = http.ReadResponse(bufio.NewReader(c), nil)
	c.Close()
	gauge := st.metrics.connections.WithLabelValues("agent")

	for _, sent := range []int{1, 20 << 10} {
		goruntime.GC()
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		open := make([]net.Conn, 0, conns)
		for range conns {
			c, err := net.Dial("tcp", st.addr)
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, c)
			fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", announced, bytes.Repeat([]byte("a"), sent))
		}
		if sent > 8<<10 {
			// Past the read-ahead, hookgate reads and counts the bytes.
			if !eventually(closeMargin, func() bool { return st.s.bodies.inUse() == int64(conns*sent) }) {
				t.Fatalf("hookgate holds %d body bytes, want %d", st.s.bodies.inUse(), conns*sent)
			}
		} else {
			// The bytes wait in the read-ahead, which begins as soon as
			// the head is parsed.
			if !eventually(closeMargin, func() bool { return testutil.ToFloat64(gauge) == conns }) {
				t.Fatalf("%v connections open, want %d", testutil.ToFloat64(gauge), conns)
			}
			time.Sleep(500 * time.Millisecond)
		}
		goruntime.ReadMemStats(&after)
		grew := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%d connections announcing %d bytes and sending %d: %.1f KiB allocated in all", conns, announced, sent, float64(grew)/1024)
		if grew > conns<<20 {
			t.Fatalf("%d connections that sent %d body bytes each allocated %d MiB", conns, sent, grew>>20)
		}
		for _, c := range open {
			c.Close()
		}
		if !eventually(closeMargin, func() bool { return testutil.ToFloat64(gauge) == 0 && st.s.bodies.inUse() == 0 }) {
			t.Fatalf("%v connections open and %d body bytes held after the clients left", testutil.ToFloat64(gauge), st.s.bodies.inUse())
		}
	}
}

// Bodies read as they arrive reach the upstream whole, with a length and
// chunked, small and over the pooled buffer sizes, and a body over the
// limit is refused 413 however it is framed.
func TestBodiesArriveWhole(t *testing.T) {
	sums := make(chan string, 1)
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		_, _ = io.Copy(h, r.Body)
		sums <- hex.EncodeToString(h.Sum(nil))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	})
	const limit = 3 << 20
	st := serveClients(t, upstream, func(c *Config) { c.Limits.MaxRequestBytes = limit }, Options{})
	for _, size := range []int{1, 4 << 10, 4<<10 + 1, 100 << 10, limit} {
		for _, chunked := range []bool{false, true} {
			body := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
			resp := sendBody(t, st.addr, body, chunked)
			sum := sha256.Sum256(body)
			if resp.StatusCode != 200 {
				t.Fatalf("%d bytes, chunked=%v: status %d", size, chunked, resp.StatusCode)
			}
			if got := <-sums; got != hex.EncodeToString(sum[:]) {
				t.Fatalf("%d bytes, chunked=%v: the upstream got another body", size, chunked)
			}
		}
	}
	for _, chunked := range []bool{false, true} {
		resp := sendBody(t, st.addr, bytes.Repeat([]byte("a"), limit+1), chunked)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked=%v: a body over the limit got %d", chunked, resp.StatusCode)
		}
	}
	// A body's bytes go back when fasthttp resets its request, after the
	// response's last byte has been written.
	if !eventually(closeMargin, func() bool { return st.s.bodies.inUse() == 0 }) {
		t.Fatalf("%d body bytes held after every request was answered", st.s.bodies.inUse())
	}
}

func sendBody(t *testing.T, addr string, body []byte, chunked bool) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(closeMargin))
	go func() {
		w := bufio.NewWriter(c)
		if chunked {
			fmt.Fprintf(w, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
			for i := 0; i < len(body); i += 50 << 10 {
				part := body[i:min(i+50<<10, len(body))]
				fmt.Fprintf(w, "%x\r\n%s\r\n", len(part), part)
			}
			fmt.Fprintf(w, "0\r\n\r\n")
		} else {
			fmt.Fprintf(w, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", len(body))
			w.Write(body)
		}
		w.Flush()
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// Over limits.max_inflight_request_bytes a request is refused with a 503,
// Retry-After and request_bytes_limit_reached, counted in
// hookgate_admission_refused_total{limit="request_bytes"}; once the bytes
// held are given back, requests are served again.
func TestInflightRequestBytesCap(t *testing.T) {
	const budget = 64 << 10
	st := serveClients(t, okUpstream, func(c *Config) { c.Limits.MaxInflightRequestBytes = budget }, Options{})
	holder, err := net.Dial("tcp", st.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	fmt.Fprintf(holder, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", 200<<10, bytes.Repeat([]byte("a"), 60<<10))
	if !eventually(closeMargin, func() bool { return st.s.bodies.inUse() == 60<<10 }) {
		t.Fatalf("hookgate holds %d body bytes, want %d", st.s.bodies.inUse(), 60<<10)
	}
	resp := sendBody(t, st.addr, bytes.Repeat([]byte("b"), 10<<10), false)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("over the in-flight budget: status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if n := testutil.ToFloat64(st.metrics.refused.WithLabelValues(requestBytesLimit)); n != 1 {
		t.Fatalf("hookgate_admission_refused_total{limit=request_bytes} = %v, want 1", n)
	}
	holder.Close()
	if !eventually(closeMargin, func() bool { return st.s.bodies.inUse() == 0 }) {
		t.Fatalf("%d body bytes still held after the holder left", st.s.bodies.inUse())
	}
	if resp := sendBody(t, st.addr, bytes.Repeat([]byte("b"), 10<<10), false); resp.StatusCode != 200 {
		t.Fatalf("within the budget again: status %d", resp.StatusCode)
	}
}

// The in-flight refusal is in the route's error shape.
func TestInflightRefusalShape(t *testing.T) {
	st := serveClients(t, okUpstream, func(c *Config) { c.Limits.MaxInflightRequestBytes = 1 << 10 }, Options{})
	c, err := net.Dial("tcp", st.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(closeMargin))
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", 8<<10, bytes.Repeat([]byte("a"), 8<<10))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != admissionRetryAfter || gjson.GetBytes(body, "error.code").String() != "request_bytes_limit_reached" {
		t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

// A client that waits for 100 Continue (curl does, for bodies over 1 KiB)
// gets it, then its body is read and relayed.
func TestExpectContinueBodyIsRead(t *testing.T) {
	st := serveClients(t, okUpstream, nil, Options{})
	c, err := net.Dial("tcp", st.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(closeMargin))
	body := bytes.Repeat([]byte("a"), 20<<10)
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(body))
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("want 100 Continue, got %q %v", line, err)
	}
	if blank, _ := r.ReadString('\n'); blank != "\r\n" {
		t.Fatalf("100 Continue not ended: %q", blank)
	}
	c.Write(body)
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
}
