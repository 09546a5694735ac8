package bench

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
)

// Goroutines counts this process's goroutines by what they run, from a
// dump of every stack. Hookgate counts those running the module's code
// (the stack or its creator is in github.com/hookgate/hookgate/), the
// soak's own (package bench: workers, sampler) left out; the script hooks'
// pooled runtimes, each of which keeps a goroutine waiting for its next
// call, are counted apart in Runtimes, as are the fasthttp goroutines
// that keep an idle keep-alive connection (KeepAlive: the mock's side of
// hookgate's pooled upstream connections, kept up to 90 s) or wait idle in
// a worker pool. Total is every goroutine.
type Goroutines struct {
	Hookgate  int `json:"hookgate"`
	Runtimes  int `json:"script_runtimes"`
	KeepAlive int `json:"idle_keepalive"`
	Total     int `json:"total"`
}

// CountGoroutines dumps every stack and classifies the goroutines. The
// dump stops the world: call it before and after a load, not during.
func CountGoroutines() Goroutines {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var g Goroutines
	for st := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if len(bytes.TrimSpace(st)) == 0 {
			continue
		}
		g.Total++
		switch {
		case bytes.Contains(st, []byte("hooks.(*scriptHandler).serve")):
			g.Runtimes++
		case bytes.Contains(st, []byte("github.com/hookgate/hookgate/")) &&
			!bytes.Contains(st, []byte("github.com/hookgate/hookgate/bench.")):
			g.Hookgate++
		case bytes.Contains(st, []byte("fasthttp.(*Server).serveConn")) || bytes.Contains(st, []byte("fasthttp.(*workerPool)")):
			g.KeepAlive++
		}
	}
	return g
}

// procStatus reads fields of /proc/self/status given in kB (VmRSS,
// VmHWM), in bytes; absent fields (or a system without /proc) read 0.
func procStatus(fields ...string) map[string]uint64 {
	return procStatusOf("self", fields...)
}

// procStatusOf is procStatus for the process pid ("self" or a number),
// e.g. a hookgate started as a child process.
func procStatusOf(pid string, fields ...string) map[string]uint64 {
	out := make(map[string]uint64, len(fields))
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		for _, want := range fields {
			if k == want {
				kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				out[k] = kb << 10
			}
		}
	}
	return out
}

// rss is the process's resident set size now, in bytes.
func rss() uint64 { return procStatus("VmRSS")["VmRSS"] }

// liveHeap collects garbage twice, so that what sync.Pools hold spare is
// let go too (a pool keeps its objects over one collection), and returns
// the bytes of live heap objects.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// runtimeSample reads, without stopping the world, the goroutine count and
// the bytes of heap objects (live and not yet swept).
type runtimeSample struct {
	s []metrics.Sample
}

func newRuntimeSample() *runtimeSample {
	return &runtimeSample{s: []metrics.Sample{
		{Name: "/sched/goroutines:goroutines"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}}
}

func (r *runtimeSample) read() (goroutines, heap uint64) {
	metrics.Read(r.s)
	if r.s[0].Value.Kind() == metrics.KindUint64 {
		goroutines = r.s[0].Value.Uint64()
	}
	if r.s[1].Value.Kind() == metrics.KindUint64 {
		heap = r.s[1].Value.Uint64()
	}
	return goroutines, heap
}

// loadAvgLine is /proc/loadavg as it reads (1, 5 and 15 minutes, runnable
// and total tasks), or "" where it is absent.
func loadAvgLine() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// writeHeapProfile writes the heap profile (as of the last collection)
// to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
