package proxy_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// rawUpstream is an HTTP/1.1 upstream on loopback written on bare TCP, so
// that a test decides what happens to each connection after each request:
// answer and keep it, answer and drop it while idle, or take the request
// and close without a byte. It records every request it read.
type rawUpstream struct {
	t    *testing.T
	addr string
	// act decides, for the request read in arrival order seq, what the
	// connection does.
	act func(seq int) rawAction

	mu      sync.Mutex
	ln      net.Listener
	conns   map[net.Conn]bool
	seen    []string // "METHOD path" of every request read
	accepts int
	wg      sync.WaitGroup
}

type rawAction struct {
	// closeAfter, when set, closes the connection that long after reading
	// the request, without answering.
	closeAfter time.Duration
	// dropIdleAfter, when set, answers and then closes the idle
	// connection that long afterwards, without saying so in the answer.
	dropIdleAfter time.Duration
}

func startRawUpstream(t *testing.T, act func(seq int) rawAction) *rawUpstream {
	t.Helper()
	u := &rawUpstream{t: t, act: act, conns: map[net.Conn]bool{}}
	u.listen("127.0.0.1:0")
	t.Cleanup(u.stop)
	return u
}

func (u *rawUpstream) URL() string { return "http://" + u.addr }

func (u *rawUpstream) listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		u.t.Fatal(err)
	}
	u.mu.Lock()
	u.ln, u.addr = ln, ln.Addr().String()
	u.mu.Unlock()
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.mu.Lock()
			u.conns[c] = true
			u.accepts++
			u.mu.Unlock()
			u.wg.Add(1)
			go u.serve(c)
		}
	}()
}

// stop closes the listener and every connection, as a process that exits.
func (u *rawUpstream) stop() {
	u.mu.Lock()
	if u.ln != nil {
		_ = u.ln.Close()
		u.ln = nil
	}
	for c := range u.conns {
		_ = c.Close()
	}
	u.mu.Unlock()
	u.wg.Wait()
}

// restart stops the upstream and listens again on the same address.
func (u *rawUpstream) restart() {
	u.stop()
	u.listen(u.addr)
}

func (u *rawUpstream) serve(c net.Conn) {
	defer u.wg.Done()
	defer func() {
		u.mu.Lock()
		delete(u.conns, c)
		u.mu.Unlock()
		_ = c.Close()
	}()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		u.mu.Lock()
		seq := len(u.seen)
		u.seen = append(u.seen, req.Method+" "+req.URL.Path)
		u.mu.Unlock()
		a := u.act(seq)
		if a.closeAfter > 0 {
			time.Sleep(a.closeAfter)
			return
		}
		body := plainCompletion
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body); err != nil {
			return
		}
		if a.dropIdleAfter > 0 {
			time.Sleep(a.dropIdleAfter)
			return
		}
	}
}

func (u *rawUpstream) requests() ([]string, int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...), u.accepts
}

// A keep-alive connection the upstream dropped while it sat in the pool
// (the upstream restarted, or its idle timeout is shorter than hookgate's)
// cannot have delivered the request: the request goes again, once, on a
// new connection, and the client never sees the dead one.
func TestDroppedKeepAliveIsRetriedOnANewConnection(t *testing.T) {
	for _, hooks := range []string{"", denyHook} {
		name := "open"
		if hooks != "" {
			name = "with hooks"
		}
		t.Run(name+"/upstream restarted", func(t *testing.T) {
			up := startRawUpstream(t, func(int) rawAction { return rawAction{} })
			s := startRouteStack(t, up.URL(), hooks)
			// Several pooled connections, all of which the restart kills.
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
				}()
			}
			wg.Wait()
			up.restart()
			time.Sleep(50 * time.Millisecond)
			for i := range 3 {
				resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
				if resp.StatusCode != 200 {
					t.Fatalf("request %d after the restart: status %d: %s", i, resp.StatusCode, body)
				}
			}
		})
		t.Run(name+"/idle connection dropped", func(t *testing.T) {
			up := startRawUpstream(t, func(seq int) rawAction {
				if seq == 0 {
					return rawAction{dropIdleAfter: 20 * time.Millisecond}
				}
				return rawAction{}
			})
			s := startRouteStack(t, up.URL(), hooks)
			if resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody); resp.StatusCode != 200 {
				t.Fatalf("first request: status %d: %s", resp.StatusCode, body)
			}
			time.Sleep(200 * time.Millisecond)
			resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions", nil, chatBody)
			if resp.StatusCode != 200 {
				t.Fatalf("second request: status %d: %s", resp.StatusCode, body)
			}
			seen, accepts := up.requests()
			if len(seen) != 2 || accepts != 2 {
				t.Errorf("upstream read %d requests on %d connections, want 2 on 2: %v", len(seen), accepts, seen)
			}
		})
	}
}

// An upstream that took the request and closed more than a second later
// without a byte may have been generating: the request is not sent again,
// whatever its method, and the client gets a 502 in the route's shape.
// A fresh connection that fails is not retried either: that failure is
// the upstream's answer.
func TestUpstreamThatTookTheRequestIsNotRetried(t *testing.T) {
	cases := []struct {
		name, method, path string
		first              rawAction // the connection's first request
		failing            rawAction // the request that fails
		reuse              bool      // whether the failing request reuses the first's connection
	}{
		{"POST closed after 1.5 s on a reused connection", "POST", "/v1/chat/completions", rawAction{}, rawAction{closeAfter: 1500 * time.Millisecond}, true},
		{"GET closed after 1.5 s on a reused connection", "GET", "/v1/models", rawAction{}, rawAction{closeAfter: 1500 * time.Millisecond}, true},
		{"POST closed at once on a fresh connection", "POST", "/v1/chat/completions", rawAction{}, rawAction{closeAfter: time.Millisecond}, false},
		{"GET closed at once on a fresh connection", "GET", "/v1/models", rawAction{}, rawAction{closeAfter: time.Millisecond}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := startRawUpstream(t, func(seq int) rawAction {
				if seq == 0 && c.reuse {
					return c.first
				}
				return c.failing
			})
			s := startRouteStack(t, up.URL(), "")
			body := ""
			if c.method == "POST" {
				body = chatBody
			}
			want := 1
			if c.reuse {
				want = 2
				if resp, b := rawRequest(t, s.app.URL(), c.method, c.path, nil, body); resp.StatusCode != 200 {
					t.Fatalf("first request: status %d: %s", resp.StatusCode, b)
				}
			}
			resp, b := rawRequest(t, s.app.URL(), c.method, c.path, nil, body)
			if resp.StatusCode != 502 {
				t.Fatalf("status %d, want 502: %s", resp.StatusCode, b)
			}
			checkErrorShape(t, c.name, b, openAIShape, "upstream_unreachable")
			time.Sleep(100 * time.Millisecond)
			seen, _ := up.requests()
			if len(seen) != want {
				t.Errorf("upstream read %d requests, want %d (the failing one once): %v", len(seen), want, seen)
			}
		})
	}
}
