package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// runMock serves the embedded mock model on a port until interrupted, and
// logs each request it receives (never its headers, so no key is logged).
// With configs/local.yaml it lets anyone try `hookgate serve` without a
// provider key.
func runMock(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: hookgate mock [--listen ADDR]

Runs a mock OpenAI chat-completions model on ADDR (what configs/local.yaml
points at) and logs every request it receives. The model does what the last
message says: a user line "call NAME {JSON}" asks for that tool call; a tool
result gets a final answer quoting it; anything else is repeated back.

`)
		fs.PrintDefaults()
	}
	listen := fs.String("listen", "127.0.0.1:8790", "address to listen on")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	srv, err := mockupstream.New(mockupstream.Options{Addr: *listen, NoRecord: true})
	if err != nil {
		fmt.Fprintln(stderr, "hookgate mock:", err)
		return 1
	}
	defer srv.Close()
	log := &syncWriter{w: stdout}
	srv.Handle(func(req *mockupstream.Request) mockupstream.Response {
		fmt.Fprintf(log, "%s %s\n", req.Received.Format(time.TimeOnly), mockupstream.Describe(req))
		return mockupstream.Instructed(req)
	})
	fmt.Fprintf(stdout, "mock model listening on %s (POST /v1/chat/completions; Ctrl-C stops it)\n", srv.URL())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	<-sigs
	return 0
}

// syncWriter serialises writes from the mock's concurrent handlers, so
// that two requests' log lines never interleave.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
