package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"go.yaml.in/yaml/v3"
)

// Modes of brkServer.
const (
	brkHang  int32 = iota // never answers; waits for the client to give up
	brkAllow              // answers allow at once
	brkGated              // signals entered, waits for the gate, then allows
)

// brkServer is a policy server and judge on loopback that hangs, recovers
// or holds a call at a gate, and counts the calls that reached it.
type brkServer struct {
	mode    atomic.Int32
	hits    atomic.Int64
	entered chan struct{}
	gate    chan struct{}
	srv     *httptest.Server
}

func newBrkServer(t *testing.T) *brkServer {
	t.Helper()
	s := &brkServer{entered: make(chan struct{}, 16), gate: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *brkServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	s.hits.Add(1)
	switch s.mode.Load() {
	case brkHang:
		<-r.Context().Done()
		return
	case brkGated:
		s.entered <- struct{}{}
		select {
		case <-s.gate:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		fmt.Fprint(w, `{"id":"c","object":"chat.completion","created":1,"model":"judge","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{\"decision\":\"allow\",\"reason\":\"fine\"}"}}]}`)
		return
	}
	fmt.Fprint(w, `{"decision":"allow","reason":"fine"}`)
}

// brkRecorder keeps executions and the breaker's changes of state.
type brkRecorder struct {
	engRecorder
	mu     sync.Mutex
	states []string
}

func (r *brkRecorder) BreakerStateChanged(hookID, state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, hookID+":"+state)
}

func (r *brkRecorder) changes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.states...)
}

// syncBuffer is a bytes.Buffer safe for a logger used by many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// brkSpec is a pre_tool_use hook of kind ("http" or "prompt") asking s.
func brkSpec(kind string, s *brkServer, timeout time.Duration, bs *BreakerSpec) (Spec, Deps) {
	spec := Spec{ID: "policy-" + kind, Event: PreToolUse, Trusted: true, TimeoutMS: int(timeout / time.Millisecond), Breaker: bs}
	deps := Deps{}
	switch kind {
	case "http":
		spec.Handler = HandlerSpec{Type: "http", URL: s.srv.URL + "/decide"}
	case "prompt":
		spec.Handler = HandlerSpec{Type: "prompt", Instruction: "Block destructive commands.", Model: "judge"}
		deps.Judges = map[string]JudgeEndpoint{"": {BaseURL: s.srv.URL + "/v1", APIKey: "sk-brk-judge-key"}}
	}
	return spec, deps
}

// brkDispatch dispatches one call and says how long it took.
func brkDispatch(e *Engine) (Outcome, time.Duration) {
	start := time.Now()
	out := e.Dispatch(context.Background(), toolEvent("exec", map[string]any{"command": "ls"}))
	return out, time.Since(start)
}

// TestBreakerHungServerThenRecovers drives a policy server and a judge that
// hang, then recover, through the engine: every call blocks; once the
// breaker is open calls block at once without reaching the server, even
// when the server would now allow; after the cool-down one probe goes
// through while the others still block; its success closes the breaker.
func TestBreakerHungServerThenRecovers(t *testing.T) {
	const (
		timeout  = 400 * time.Millisecond
		fast     = timeout / 4 // "far less than the timeout"
		failures = 3
		// Long enough that steps 2 and 3 finish before it ends, even on a
		// loaded machine.
		cooldown = time.Second
	)
	for _, kind := range []string{"http", "prompt"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			s := newBrkServer(t)
			spec, deps := brkSpec(kind, s, timeout, &BreakerSpec{Failures: failures, Cooldown: cooldown})
			var logs syncBuffer
			deps.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			rec := &brkRecorder{}
			e, err := Compile([]Spec{spec}, deps, Options{Recorder: rec})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = e.Close() })
			wantNote := "hook " + spec.ID + " unavailable: circuit breaker open (fail-closed)"

			// 1. The server hangs: each call waits out the timeout and blocks.
			for i := range failures {
				out, d := brkDispatch(e)
				if out.Decision != Block || out.Executions[0].Decision != Timeout || d < timeout {
					t.Fatalf("call %d on a hung server: %s after %v (hook %s), want a block after the %v timeout", i+1, out.Decision, d, out.Executions[0].Decision, timeout)
				}
			}
			openedAt := time.Now()

			// 2. The N+1th call: blocked at once, the server never asked.
			out, d := brkDispatch(e)
			x := out.Executions[0]
			if out.Decision != Block || x.Decision != Error || !errors.Is(x.Cause, ErrBreakerOpen) {
				t.Fatalf("call %d with the breaker open: %s (hook %s, cause %v), want a block caused by ErrBreakerOpen", failures+1, out.Decision, x.Decision, x.Cause)
			}
			if d >= fast {
				t.Fatalf("call %d with the breaker open took %v, want far less than the %v timeout", failures+1, d, timeout)
			}
			if out.Reason != wantNote {
				t.Fatalf("note = %q, want %q", out.Reason, wantNote)
			}
			if h := s.hits.Load(); h != failures {
				t.Fatalf("server got %d calls, want %d (none while open)", h, failures)
			}
			t.Logf("%s: call %d blocked in %v with the breaker open (timeout %v)", kind, failures+1, d, timeout)

			// 3. The server is healthy again, but the breaker is open: nothing
			// is allowed, nothing reaches the server.
			s.mode.Store(brkAllow)
			var wg sync.WaitGroup
			var allowed, slow atomic.Int64
			for range 20 {
				wg.Go(func() {
					out, d := brkDispatch(e)
					if out.Decision != Block {
						allowed.Add(1)
					}
					if d >= fast {
						slow.Add(1)
					}
				})
			}
			wg.Wait()
			if allowed.Load() != 0 || slow.Load() != 0 || s.hits.Load() != failures {
				t.Fatalf("while open: %d of 20 allowed, %d slow, server hits %d (want 0, 0, %d)", allowed.Load(), slow.Load(), s.hits.Load(), failures)
			}

			// 4. After the cool-down: one probe goes through; while it runs,
			// every other call still blocks at once.
			time.Sleep(time.Until(openedAt.Add(cooldown + 50*time.Millisecond)))
			s.mode.Store(brkGated)
			probe := make(chan Outcome, 1)
			go func() { out, _ := brkDispatch(e); probe <- out }()
			select {
			case <-s.entered:
			case <-time.After(5 * time.Second):
				t.Fatal("the half-open probe never reached the server")
			}
			for i := range 5 {
				out, d := brkDispatch(e)
				if out.Decision != Block || !errors.Is(out.Executions[0].Cause, ErrBreakerOpen) || d >= fast {
					t.Fatalf("call %d during the probe: %s after %v (cause %v), want an immediate block", i+1, out.Decision, d, out.Executions[0].Cause)
				}
			}
			close(s.gate)
			if out := <-probe; out.Decision != Allow {
				t.Fatalf("probe: %s (%s), want allow", out.Decision, out.Reason)
			}

			// 5. Closed again: calls reach the server and are allowed.
			s.mode.Store(brkAllow)
			before := s.hits.Load()
			for i := range 5 {
				if out, _ := brkDispatch(e); out.Decision != Allow {
					t.Fatalf("call %d after the probe: %s (%s), want allow", i+1, out.Decision, out.Reason)
				}
			}
			if got := s.hits.Load() - before; got != 5 {
				t.Fatalf("server got %d of 5 calls after the breaker closed", got)
			}
			want := []string{spec.ID + ":open", spec.ID + ":half-open", spec.ID + ":closed"}
			if got := rec.changes(); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("breaker changes = %v, want %v", got, want)
			}
			log := logs.String()
			for _, w := range []string{"hook breaker opened", "hook breaker half-open", "hook breaker closed"} {
				if !strings.Contains(log, w) {
					t.Errorf("log lacks %q:\n%s", w, log)
				}
			}
			if strings.Contains(log, "sk-brk-judge-key") {
				t.Errorf("the judge key reached the log:\n%s", log)
			}
			// Every refused call is in the record as an error.
			var refused int
			for _, x := range rec.executions() {
				if errors.Is(x.Cause, ErrBreakerOpen) {
					refused++
					if x.Decision != Error || x.Applied != Block {
						t.Errorf("refused call recorded as %s/%s, want error/block", x.Decision, x.Applied)
					}
				}
			}
			if refused != 1+20+5 {
				t.Errorf("%d refused calls recorded, want %d", refused, 1+20+5)
			}
		})
	}
}

// TestBreakerFailedProbeOpensAgain: a probe that times out opens the
// breaker for another cool-down, and the next call blocks at once.
func TestBreakerFailedProbeOpensAgain(t *testing.T) {
	const timeout, cooldown = 300 * time.Millisecond, 300 * time.Millisecond
	s := newBrkServer(t)
	spec, deps := brkSpec("http", s, timeout, &BreakerSpec{Failures: 1, Cooldown: cooldown})
	rec := &brkRecorder{}
	e, err := Compile([]Spec{spec}, deps, Options{Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if out, _ := brkDispatch(e); out.Executions[0].Decision != Timeout {
		t.Fatalf("first call: %s, want a timeout", out.Executions[0].Decision)
	}
	time.Sleep(cooldown + 50*time.Millisecond)
	if out, d := brkDispatch(e); out.Decision != Block || out.Executions[0].Decision != Timeout || d < timeout {
		t.Fatalf("probe on a hung server: %s/%s after %v, want a timeout", out.Decision, out.Executions[0].Decision, d)
	}
	if out, d := brkDispatch(e); !errors.Is(out.Executions[0].Cause, ErrBreakerOpen) || d >= timeout/4 {
		t.Fatalf("after the failed probe: %v after %v, want an immediate ErrBreakerOpen", out.Executions[0].Cause, d)
	}
	want := "policy-http:open policy-http:half-open policy-http:open"
	if got := strings.Join(rec.changes(), " "); got != want {
		t.Fatalf("changes = %s, want %s", got, want)
	}
	if h := s.hits.Load(); h != 2 {
		t.Fatalf("server got %d calls, want 2 (the first and the probe)", h)
	}
}

// TestBreakerOpenBlocksEvenUnderOnTimeoutAllow: on_timeout: allow lets a
// call go on when its hook failed (a timeout here), but an open breaker
// means the hook was not asked: the call is blocked at once, or a few
// failing inputs of one session would open an allow-everything window for
// all (found in review).
func TestBreakerOpenBlocksEvenUnderOnTimeoutAllow(t *testing.T) {
	s := newBrkServer(t)
	spec, deps := brkSpec("http", s, 200*time.Millisecond, &BreakerSpec{Failures: 1, Cooldown: time.Minute})
	spec.OnTimeout = "allow"
	e, err := Compile([]Spec{spec}, deps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if out, _ := brkDispatch(e); out.Decision != Allow || out.Executions[0].Decision != Timeout {
		t.Fatalf("first call: %s/%s, want allow after a timeout", out.Decision, out.Executions[0].Decision)
	}
	out, d := brkDispatch(e)
	x := out.Executions[0]
	if out.Decision != Block || x.Applied != Block || !errors.Is(x.Cause, ErrBreakerOpen) || d >= 50*time.Millisecond {
		t.Fatalf("open breaker under on_timeout: allow: %s (applied %s, cause %v) after %v, want blocked at once", out.Decision, x.Applied, x.Cause, d)
	}
	if !strings.Contains(out.Reason, "circuit breaker open") {
		t.Fatalf("note %q does not say the breaker is open", out.Reason)
	}
}

// TestBreakerCountsOnlyTheServer: calls whose caller left count neither
// way; a verdict that arrives after the deadline counts as a failure.
func TestBreakerCountsOnlyTheServer(t *testing.T) {
	b, err := newBreaker(&Spec{ID: "b", Breaker: &BreakerSpec{Failures: 2, Cooldown: time.Minute}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for range 10 {
		_, err := b.do(cancelled, func() (Result, error) { return Result{}, fmt.Errorf("post: %w", context.Canceled) })
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrBreakerOpen) {
			t.Fatalf("cancelled call: %v, want its own error back", err)
		}
	}
	if st := b.cb.State(); st != gobreaker.StateClosed {
		t.Fatalf("after 10 cancelled calls the breaker is %s, want closed", st)
	}
	late, cancelLate := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancelLate()
	<-late.Done()
	for i := range 2 {
		_, err := b.do(late, func() (Result, error) { return Result{Decision: Allow}, nil })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("late verdict %d: %v, want a deadline error", i+1, err)
		}
	}
	_, err = b.do(context.Background(), func() (Result, error) { t.Fatal("called while open"); return Result{}, nil })
	if !errors.Is(err, ErrBreakerOpen) {
		t.Fatalf("after two late verdicts: %v, want ErrBreakerOpen", err)
	}
	// A nil breaker (disabled) runs every call.
	var off *breaker
	if res, err := off.do(context.Background(), func() (Result, error) { return Result{Decision: Block}, nil }); err != nil || res.Decision != Block {
		t.Fatalf("disabled breaker: %v %v", res, err)
	}
}

// TestBreakerConfig checks `breaker:` at load: defaults, limits, handler
// types, disabled, and the YAML spelling.
func TestBreakerConfig(t *testing.T) {
	s := newBrkServer(t)
	build := func(kind string, bs *BreakerSpec) (*Engine, error) {
		spec, deps := brkSpec(kind, s, time.Second, bs)
		return Compile([]Spec{spec}, deps, Options{})
	}
	errCases := []struct {
		name string
		bs   *BreakerSpec
		want string
	}{
		{"negative failures", &BreakerSpec{Failures: -1}, "breaker.failures"},
		{"negative cooldown", &BreakerSpec{Cooldown: -time.Second}, "breaker.cooldown"},
		{"long cooldown", &BreakerSpec{Cooldown: 2 * time.Hour}, "breaker.cooldown"},
	}
	for _, tc := range errCases {
		if _, err := build("http", tc.bs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
	script := Spec{ID: "s", Event: PreToolUse, Trusted: true, Breaker: &BreakerSpec{Failures: 2},
		Handler: HandlerSpec{Type: "script", Source: `function handle(e) { return {decision: "allow"}; }`}}
	if _, err := Compile([]Spec{script}, Deps{}, Options{}); err == nil || !strings.Contains(err.Error(), "only http and prompt hooks") {
		t.Errorf("breaker on a script hook: %v, want a configuration error", err)
	}

	for _, kind := range []string{"http", "prompt"} {
		e, err := build(kind, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := e.hooks[0].handler.(breakered).circuitBreaker()
		if b == nil || b.failures != DefaultBreakerFailures || b.cooldown != DefaultBreakerCooldown {
			t.Errorf("%s without breaker: %+v, want the defaults on", kind, b)
		}
		_ = e.Close()
		e, err = build(kind, &BreakerSpec{Disabled: true})
		if err != nil {
			t.Fatal(err)
		}
		if b := e.hooks[0].handler.(breakered).circuitBreaker(); b != nil {
			t.Errorf("%s with breaker disabled: %+v, want none", kind, b)
		}
		_ = e.Close()
	}

	var spec Spec
	dec := yaml.NewDecoder(strings.NewReader("id: p\nevent: pre_tool_use\nhandler: {type: http, url: \"http://127.0.0.1:1\"}\nbreaker: {failures: 7, cooldown: 1m30s}\n"))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		t.Fatal(err)
	}
	if spec.Breaker == nil || spec.Breaker.Failures != 7 || spec.Breaker.Cooldown != 90*time.Second {
		t.Fatalf("decoded breaker %+v", spec.Breaker)
	}
	for _, bad := range []string{"breaker: {cooldown: 10}\n", "breaker: {failure: 3}\n"} {
		var sp Spec
		dec := yaml.NewDecoder(strings.NewReader("id: p\n" + bad))
		dec.KnownFields(true)
		if err := dec.Decode(&sp); err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
	// A hook without breaker: keeps the version it had before the key
	// existed (audit rows compare versions across upgrades).
	plain := Spec{ID: "v", Event: PreToolUse, Handler: HandlerSpec{Type: "http", URL: "http://127.0.0.1:1"}}
	if raw, err := json.Marshal(&plain); err != nil || bytes.Contains(raw, []byte("Breaker")) {
		t.Errorf("a hook without breaker hashes as %s (%v): its version would change", raw, err)
	}
}
