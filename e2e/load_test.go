package e2e

// Hardening, load, in a form short enough for `go test -race`:
// concurrent held streams, failing upstreams, a very long stream and a
// slow reader keep errors at zero and memory bounded. The full-size load
// is bench/'s business (hookgate bench).

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// hgGoroutines counts the goroutines running hookgate's code (their stack
// or creator is in this module, the test's own left out), and apart from
// them the script hooks' pooled runtimes, each of which keeps a goroutine
// (bounded by the pool's size). Idle fasthttp workers holding pooled
// keep-alive connections run no hookgate code and are not counted.
func hgGoroutines() (hookgate, runtimes, total int) {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.TrimSpace(g) == "" {
			continue
		}
		total++
		switch {
		case strings.Contains(g, "hooks.(*scriptHandler).newVM"):
			runtimes++
		case strings.Contains(g, "github.com/hookgate/hookgate/") && !strings.Contains(g, "github.com/hookgate/hookgate/e2e."):
			hookgate++
		}
	}
	return hookgate, runtimes, total
}

// hgRSS reads the process's resident and peak resident set sizes (Linux).
func hgRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(out, ", ")
}

// hgClient is an HTTP client of its own, so its connections can be closed.
func hgClient(conns int) (*http.Client, *http.Transport) {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true}
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}, tr
}

func TestHardeningConcurrentHeldStreams(t *testing.T) {
	workers, dur := 200, 10*time.Second
	if testing.Short() {
		workers, dur = 50, 3*time.Second
	}
	// The script memory budget is set far above the default: this test is
	// about held streams, and under the race detector, with 200 streams
	// and other suites on 2 cores, a script stalled for a while is charged
	// with the garbage of a live heap of hundreds of MiB (the watchdog sees
	// the process heap; hooks/script_memory.go, README "Handler kinds").
	// For the same reason the judge's timeout is 30 s, not the default
	// 5 s: on a loaded machine a script can wait that long for a core, and
	// its fail-closed timeout would read here as a wrong answer.
	s := startStack(t, `timeouts:
  heartbeat: 100ms
limits:
  script_max_memory: 1GiB
hooks:
  - id: judge
    event: pre_tool_use
    matcher: "^exec$"
    timeout_ms: 30000
    handler:
      type: script
      source: |
        function handle(e) {
          if (e.toolInput.command.indexOf("rm -rf") >= 0) return { decision: "block", reason: "destructive" };
          return { decision: "allow" };
        }
`)
	spec := mockupstream.StreamSpec{TextDeltas: 4, ArgFragments: 4, Calls: []mockupstream.ToolCall{
		{ID: "call_ok", Name: "exec", Arguments: `{"command":"ls -la"}`},
		{ID: "call_rm", Name: "exec", Arguments: `{"command":"rm -rf /"}`},
	}}
	s.mock.Handle(mockupstream.Always(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 2 * time.Millisecond})))
	client, tr := hgClient(workers)
	one := func() error {
		req, _ := newPost(s.app.URL()+"/v1/chat/completions", []byte(hgStreamRequest), nil)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		switch {
		case err != nil:
			return err
		case resp.StatusCode != 200:
			return fmt.Errorf("status %d: %s", resp.StatusCode, body)
		case !bytes.Contains(body, []byte(`"id":"call_ok"`)) || bytes.Contains(body, []byte(`"id":"call_rm"`)) ||
			!bytes.Contains(body, []byte("blocked by judge")) || !bytes.HasSuffix(body, []byte("data: [DONE]\n\n")):
			return fmt.Errorf("wrong answer:\n%s", hgShort(body))
		}
		return nil
	}
	if err := one(); err != nil { // warm-up: pools, runtimes
		t.Fatal(err)
	}
	tr.CloseIdleConnections()
	time.Sleep(200 * time.Millisecond)
	base, _, baseTotal := hgGoroutines()

	var done, failed atomic.Int64
	var firstErr atomic.Value
	stop := time.Now().Add(dur)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := one(); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
				done.Add(1)
			}
		}()
	}
	peakHeld := 0.0
	for time.Now().Before(stop) {
		peakHeld = max(peakHeld, metricValue(t, s, "hookgate_held_tool_calls"))
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	t.Logf("%d workers for %s: %d streams, %d failed, peak %v calls held at once; %s", workers, dur, done.Load(), failed.Load(), peakHeld, hgRSS())
	if failed.Load() > 0 {
		t.Fatalf("%d of %d streams failed; first: %v", failed.Load(), done.Load(), firstErr.Load())
	}
	tr.CloseIdleConnections()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, vms, total := hgGoroutines()
		if n <= base && vms <= max(8, 4*runtime.GOMAXPROCS(0)) {
			t.Logf("goroutines running hookgate code: %d before, %d after; script runtimes pooled: %d; all goroutines: %d before, %d after (the rest: idle keep-alive workers)", base, n, vms, baseTotal, total)
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 16<<20)
			t.Fatalf("goroutines running hookgate code: %d before the load, still %d 10 s after it (%d script runtimes):\n%s", base, n, vms, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := metricValue(t, s, "hookgate_held_tool_calls") + activeStreams(t, s); n != 0 {
		t.Fatalf("%v held calls or active streams left", n)
	}
}

// 300 failing upstream exchanges (refused connections, 500s, streams cut
// mid-way) after a warm-up: the live heap may grow by a fixed budget only.
func TestHardeningFailingUpstreamsDoNotGrowTheHeap(t *testing.T) {
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + closed.Addr().String()
	closed.Close()
	mock := mockupstream.Start(t)
	a, _ := hgStartApp(t, "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    base_url: "+mock.URL()+"\n  - name: down\n    base_url: "+down+"\n"+denyShell)
	s := &stack{mock: mock, app: a}
	cut := mockupstream.StreamSpec{TextDeltas: 20, ToolCalls: 1}.SSE()
	var n atomic.Int64
	mock.Handle(func(*mockupstream.Request) mockupstream.Response {
		if n.Add(1)%2 == 0 {
			return mockupstream.Error(500, "server_error", "boom")
		}
		return hgCut(cut, len(cut)/2)
	})
	client, tr := hgClient(4)
	round := func(count int) {
		for i := range count {
			h := map[string]string{"X-Session-Id": fmt.Sprint("s-", i)}
			if i%3 == 0 {
				h["X-Hookgate-Upstream"] = "down"
			}
			req, _ := newPost(s.app.URL()+"/v1/chat/completions", []byte(hgStreamRequest), h)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && !bytes.Contains(body, []byte("stream_truncated")) {
				t.Fatalf("a failing exchange looked fine: %s", body)
			}
		}
	}
	round(60) // warm-up
	tr.CloseIdleConnections()
	before := hgHeap()
	round(300)
	tr.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond)
	after := hgHeap()
	grew := int64(after) - int64(before)
	const budget = 4 * mib
	t.Logf("300 failing exchanges: live heap %d KiB -> %d KiB (%+d KiB; budget %d KiB); %s", before>>10, after>>10, grew>>10, budget>>10, hgRSS())
	if grew > budget {
		t.Fatalf("the live heap grew by %d KiB over 300 failing exchanges", grew>>10)
	}
}

// hgLiveHeap samples the live heap (after a collection) at once, every
// interval, and when stop is closed.
func hgLiveHeap(stop <-chan struct{}, every time.Duration) <-chan []uint64 {
	out := make(chan []uint64, 1)
	go func() {
		samples := []uint64{hgHeap()}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				out <- append(samples, hgHeap())
				return
			case <-tick.C:
				samples = append(samples, hgHeap())
			}
		}
	}()
	return out
}

func spread(samples []uint64) (lo, hi uint64) {
	lo = ^uint64(0)
	for _, v := range samples {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// A 100,000-event stream through an intercepted route: the live heap stays
// flat from start to end (nothing accumulates per event).
func TestHardeningLongStreamKeepsTheHeapFlat(t *testing.T) {
	events := 100_000
	if testing.Short() {
		events = 20_000
	}
	s := startStack(t, denyShell)
	body := mockupstream.StreamSpec{TextDeltas: events, ToolCalls: 1}.SSE()
	s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 16 << 10}))
	hgHeap()
	stop := make(chan struct{})
	samples := hgLiveHeap(stop, 250*time.Millisecond)
	client, _ := hgClient(1)
	req, _ := newPost(s.app.URL()+"/v1/chat/completions", []byte(hgStreamRequest), nil)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	close(stop)
	if err != nil || got != int64(len(body)) {
		t.Fatalf("read %d of %d bytes: %v", got, len(body), err)
	}
	sm := <-samples
	runtime.KeepAlive(body) // the mock's copy stays live throughout
	lo, hi := spread(sm)
	grew := rise(sm)
	t.Logf("%d events (%d MiB) in %s: live heap between %d and %d KiB over %d samples (KiB: %v), grew by at most %d KiB; %s",
		events, len(body)/mib, time.Since(start).Round(time.Millisecond), lo>>10, hi>>10, len(sm), kib(sm), grew>>10, hgRSS())
	// The answer text kept for pre_response and stop is capped at 2 x 1 MiB.
	// Growth is what accumulates; a fall is memory of earlier tests
	// released late (seen: 5 MiB two seconds in) and says nothing of this
	// stream.
	if len(sm) >= 2 && grew > 4*mib {
		t.Fatalf("the live heap grew by %d KiB during one stream", grew>>10)
	}
}

// rise is the largest growth of the samples over an earlier sample.
func rise(samples []uint64) uint64 {
	var most uint64
	for i, low := 0, ^uint64(0); i < len(samples); i++ {
		low = min(low, samples[i])
		most = max(most, samples[i]-low)
	}
	return most
}

// A client reading 1 KB/s: the proxy stops reading the upstream (TCP
// back-pressure) instead of buffering, so its heap stays flat.
func TestHardeningSlowReaderIsBackPressured(t *testing.T) {
	read := 4 * time.Second
	if testing.Short() {
		read = 2 * time.Second
	}
	s := startStack(t, denyShell)
	body := mockupstream.StreamSpec{TextDeltas: 200_000}.SSE() // ~40 MiB
	s.mock.Enqueue(mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 64 << 10}))
	base := hgHeap()
	conn, err := net.Dial("tcp", hgHost(s.app.URL()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(hgStreamRequest), hgStreamRequest)
	r := bufio.NewReaderSize(conn, 1024)
	stop := make(chan struct{})
	samples := hgLiveHeap(stop, 500*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), read)
	defer cancel()
	total := 0
	buf := make([]byte, 256)
	tick := time.NewTicker(250 * time.Millisecond) // 256 B every 250 ms: 1 KB/s
	defer tick.Stop()
	for ctx.Err() == nil {
		n, err := r.Read(buf)
		total += n
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
	close(stop)
	sm := <-samples
	lo, hi := spread(sm)
	t.Logf("samples (KiB): %v", kib(sm))
	t.Logf("read %d bytes in %s of a %d MiB stream: live heap %d..%d KiB (before: %d KiB)", total, read, len(body)/mib, lo>>10, hi>>10, base>>10)
	if int64(hi)-int64(base) > 4*mib {
		t.Fatalf("the live heap grew by %d KiB while a client read 1 KB/s", (int64(hi)-int64(base))>>10)
	}
	conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for activeStreams(t, s) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the slow client's stream is still active 10 s after it left")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kib is the samples in KiB, for a log line.
func kib(s []uint64) []uint64 {
	out := make([]uint64, len(s))
	for i, v := range s {
		out[i] = v >> 10
	}
	return out
}
