package e2e

// Helpers of the hardening suite (RELIABILITY.md). Every test of
// the suite is named TestHardening... so that
//
//	go test -race -run Hardening ./e2e/
//
// runs it alone.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/apptest"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// hgLog collects an app's log, at debug level, for the secret and
// truncation checks.
type hgLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *hgLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *hgLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hgStartApp is startApp with the log kept at debug level.
func hgStartApp(t *testing.T, doc string) (*app.App, *hgLog) {
	t.Helper()
	log := &hgLog{}
	return apptest.Start(t, doc, "hardening.yaml", log, slog.LevelDebug), log
}

// hgStack is startStack with the log kept at debug level.
func hgStack(t *testing.T, extra string) (*stack, *hgLog) {
	t.Helper()
	mock := mockupstream.Start(t)
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    provider: openai\n    base_url: " + mock.URL() + "\n" + extra
	a, log := hgStartApp(t, doc)
	return &stack{mock: mock, app: a}, log
}

// hgChunk renders one chat.completion.chunk event of choice 0.
func hgChunk(delta, finish string) string {
	if finish == "" {
		finish = "null"
	} else {
		finish = strconv.Quote(finish)
	}
	return `data: {"id":"chatcmpl-hg","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":` +
		delta + `,"finish_reason":` + finish + "}]}\n\n"
}

// hgCall renders a delta carrying one tool-call entry; index < 0 leaves it
// out, id "" leaves it out.
func hgCall(index int, id, name, args string) string {
	var b strings.Builder
	b.WriteString(`{"tool_calls":[{`)
	sep := ""
	if index >= 0 {
		b.WriteString(`"index":` + strconv.Itoa(index))
		sep = ","
	}
	if id != "" {
		b.WriteString(sep + `"id":` + strconv.Quote(id) + `,"type":"function"`)
		sep = ","
	}
	b.WriteString(sep + `"function":{`)
	if name != "" {
		b.WriteString(`"name":` + strconv.Quote(name) + `,`)
	}
	b.WriteString(`"arguments":` + strconv.Quote(args) + `}}]}`)
	return b.String()
}

// hgSSE joins events and ends them with [DONE].
func hgSSE(events ...string) []byte {
	return []byte(strings.Join(events, "") + "data: [DONE]\n\n")
}

const hgStreamRequest = `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`

// hgPostStream sends a streamed chat request and reads the whole answer.
func hgPostStream(t *testing.T, s *stack, header map[string]string) (int, []byte) {
	t.Helper()
	status, _, body := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(hgStreamRequest), header)
	return status, body
}

// hgEvents splits an SSE body into its events' data payloads (comments
// left out).
func hgEvents(body []byte) []string {
	var out []string
	for _, ev := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
		var data []string
		for _, l := range strings.Split(ev, "\n") {
			if d, ok := strings.CutPrefix(l, "data:"); ok {
				data = append(data, strings.TrimPrefix(d, " "))
			}
		}
		if len(data) > 0 {
			out = append(out, strings.Join(data, "\n"))
		}
	}
	return out
}

// hgEndsWithError asserts a stream that ends with hookgate's error event of
// the given code, with no [DONE] and no finish_reason invented.
func hgEndsWithError(t *testing.T, body []byte, code string) {
	t.Helper()
	evs := hgEvents(body)
	if len(evs) == 0 {
		t.Fatalf("empty stream, want an error event %s", code)
	}
	last := evs[len(evs)-1]
	checkOpenAIError(t, []byte(last), code)
	if bytes.Contains(body, []byte("[DONE]")) {
		t.Fatalf("a [DONE] was sent on a stream that failed:\n%s", hgShort(body))
	}
}

// hgShort cuts a body for a failure message.
func hgShort(b []byte) string {
	if len(b) > 3000 {
		return string(b[:1500]) + fmt.Sprintf("\n... (%d bytes) ...\n", len(b)-3000) + string(b[len(b)-1500:])
	}
	return string(b)
}

// hgRaw sends raw bytes on a fresh TCP connection to addr and returns what
// comes back until the server closes or wait passes.
func hgRaw(t *testing.T, addr string, raw []byte, wait time.Duration) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(wait))
	if _, err := conn.Write(raw); err != nil {
		t.Logf("write: %v", err)
	}
	var out bytes.Buffer
	io.Copy(&out, bufio.NewReader(conn))
	return out.String()
}

// hgHost is a base URL without its scheme.
func hgHost(base string) string { return strings.TrimPrefix(base, "http://") }

// hgHeap is the live heap after two collections.
func hgHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// hgPeakHeap samples HeapAlloc every 20 ms until stop is
// closed and returns the largest value seen.
func hgPeakHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var m runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// hgTotalAlloc is the cumulative number of bytes allocated so far.
func hgTotalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

const mib = 1 << 20
