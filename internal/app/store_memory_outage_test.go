package app

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/internal/testenv"
	"github.com/hookgate/hookgate/store"
)

// outageProxy is a loopback TCP proxy in front of PostgreSQL that can be
// stopped (listener and every connection closed: the database is gone) and
// started again on the same address (it is back).
type outageProxy struct {
	addr, target string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func newOutageProxy(t *testing.T, target string) *outageProxy {
	t.Helper()
	p := &outageProxy{target: target, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(func() { p.stop(); p.wg.Wait() })
	return p
}

func (p *outageProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			if !p.track(c, up) {
				return
			}
			p.wg.Go(func() { io.Copy(up, c); up.Close(); c.Close() })
			p.wg.Go(func() { io.Copy(c, up); up.Close(); c.Close() })
		}
	})
}

// track registers a connection pair, unless the proxy has stopped.
func (p *outageProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *outageProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

func (p *outageProxy) start(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.serve(ln)
}

// One session's first message, and then its tool result, resent to three
// instances while PostgreSQL is down: every request is refused with a 503
// (session_memory_unavailable), no hook runs; once the store is back,
// each of session_start, user_prompt_submit and post_tool_use runs exactly
// once across the three instances, and the audit shows exactly those runs.
func TestSessionMemoryOutageFailsClosedAcrossInstances(t *testing.T) {
	dsn := testenv.Postgres(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newOutageProxy(t, u.Host)
	u.Host = proxy.addr
	ctx := context.Background()
	doc := `
upstreams:
  - {name: mock, base_url: "http://127.0.0.1:9"}
store: {driver: postgres, dsn: "` + u.String() + `"}
hooks:
  - id: start
    event: session_start
    handler: {type: script, source: "function handle(e) { return {decision: 'allow', additionalContext: 'house rules'} }"}
  - id: prompt
    event: user_prompt_submit
    handler: {type: script, source: "function handle(e) { return {decision: 'allow'} }"}
  - id: result
    event: post_tool_use
    handler: {type: script, source: "function handle(e) { return {decision: 'allow'} }"}
`
	session := "outage-" + time.Now().Format("150405.000000000")
	type instance struct {
		p    *Persistence
		chat *interceptors.Chat
	}
	var instances []instance
	for range 3 {
		cfg, err := config.Parse([]byte(doc), "outage.yaml", os.LookupEnv)
		if err != nil {
			t.Fatal(err)
		}
		p, err := OpenPersistence(ctx, cfg, prometheus.NewRegistry(), quietLogger())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			// Bounded: a failure may leave the store unreachable.
			closeCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			p.Close(closeCtx)
		})
		engine := compileHooks(t, cfg.Hooks, p.Audit)
		instances = append(instances, instance{p, interceptors.NewChat(interceptors.Options{
			Engine: engine, Memory: p.Memory, SessionHeader: "X-Session-Id", Admit: p.Audit.Admit, Logger: quietLogger(),
		})})
	}
	first := []byte(`{"model":"m","messages":[{"role":"user","content":"deploy the site"}]}`)
	result := []byte(`{"model":"m","messages":[{"role":"user","content":"deploy the site"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"exec","arguments":"{\"command\":\"make deploy\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":"deployed"}]}`)
	begin := func(in instance, body []byte) (interceptors.Exchange, error) {
		return in.chat.Begin(ctx, &interceptors.Request{Route: "/v1/chat/completions", Upstream: "mock", Provider: "openai",
			Header: func(name string) string {
				if strings.EqualFold(name, "X-Session-Id") {
					return session
				}
				return ""
			}, Body: body})
	}

	proxy.stop()
	for i, in := range instances {
		for _, body := range [][]byte{first, result} {
			_, err := begin(in, body)
			var re *interceptors.RequestError
			if !errors.As(err, &re) || re.Status != 503 || re.Code != "session_memory_unavailable" {
				t.Fatalf("instance %d while the store is down: %v, want a 503 session_memory_unavailable", i, err)
			}
		}
	}
	proxy.start(t)

	// The agents retry, as the 503's Retry-After tells them; a pooled
	// connection that died with the store may fail one more attempt.
	retry := func(in instance, body []byte) interceptors.Exchange {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			x, err := begin(in, body)
			var re *interceptors.RequestError
			switch {
			case err == nil:
				return x
			case errors.As(err, &re) && re.Code == "session_memory_unavailable" && time.Now().Before(deadline):
				time.Sleep(50 * time.Millisecond)
			default:
				t.Fatalf("after the store returned: %v", err)
			}
		}
	}
	for i, in := range instances {
		x := retry(in, first)
		if !strings.Contains(string(x.Body()), "house rules") {
			t.Fatalf("instance %d: the session context is not applied:\n%s", i, x.Body())
		}
	}
	for _, in := range instances {
		retry(in, result)
	}

	for _, in := range instances {
		if err := in.p.Audit.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	direct, err := store.Open(ctx, store.Options{Driver: store.Postgres, DSN: dsn, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	rows, err := direct.ListExecutions(ctx, store.ExecutionFilter{SessionID: session})
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, r := range rows {
		runs[r.Event]++
	}
	want := map[string]int{"session_start": 1, "user_prompt_submit": 1, "post_tool_use": 1}
	if len(runs) != len(want) || runs["session_start"] != 1 || runs["user_prompt_submit"] != 1 || runs["post_tool_use"] != 1 {
		t.Fatalf("audit rows per event %v, want %v", runs, want)
	}
}
