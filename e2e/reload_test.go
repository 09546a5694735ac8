package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// reloadable starts hookgate from a configuration file that the test
// rewrites, with the mock's address and a policy.
type reloadable struct {
	path string
	mock *mockupstream.Server
	app  *app.App
}

func (r *reloadable) write(t *testing.T, hooks string) {
	t.Helper()
	doc := "listen: 127.0.0.1:0\nadmin: {listen: '127.0.0.1:0'}\nupstreams:\n  - name: mock\n    base_url: " + r.mock.URL() + "\n" + hooks
	if err := os.WriteFile(r.path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

func startReloadable(t *testing.T, hooks string) *reloadable {
	t.Helper()
	r := &reloadable{path: filepath.Join(t.TempDir(), "hookgate.yaml"), mock: mockupstream.Start(t)}
	r.write(t, hooks)
	cfg, err := config.Load(r.path)
	if err != nil {
		t.Fatal(err)
	}
	if r.app, err = app.Build(cfg, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if err := r.app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.app.Close)
	return r
}

const blockExecPolicy = `hooks:
  - id: gate
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "policy A" }; }
`

const allowPolicy = `hooks:
  - id: gate
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow" }; }
`

func TestReloadUnderLoadFailsNoRequest(t *testing.T) {
	r := startReloadable(t, blockExecPolicy)
	spec := mockupstream.StreamSpec{TextDeltas: 4, ToolCalls: 1, ArgFragments: 3}
	stream, plain := spec.SSE(), spec.Completion()
	r.mock.Handle(func(req *mockupstream.Request) mockupstream.Response {
		if bytes.Contains(req.Body, []byte(`"stream":true`)) {
			return mockupstream.Stream(stream, mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 5 * time.Millisecond})
		}
		return mockupstream.JSON(200, plain)
	})

	var done atomic.Bool
	var ok, failed atomic.Int64
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 20 * time.Second}
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !done.Load() && i < 2000; i++ {
				body := `{"model":"m","messages":[{"role":"user","content":"go"}]}`
				if (w+i)%2 == 0 {
					body = `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`
				}
				resp, err := client.Post(r.app.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body))
				var got []byte
				if err == nil {
					got, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				switch {
				case err != nil:
				case resp.StatusCode != 200:
					err = fmt.Errorf("status %d: %s", resp.StatusCode, got)
				case strings.Contains(body, "stream") && !bytes.HasSuffix(got, []byte("data: [DONE]\n\n")):
					err = fmt.Errorf("stream did not end cleanly: %q", got[max(0, len(got)-120):])
				case !strings.Contains(body, "stream") && !bytes.Contains(got, []byte(`"choices"`)):
					err = fmt.Errorf("plain body: %s", got)
				}
				if err != nil {
					failed.Add(1)
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					continue
				}
				ok.Add(1)
			}
		}()
	}
	for i := range 10 {
		time.Sleep(60 * time.Millisecond)
		policy := allowPolicy
		if i%2 == 1 {
			policy = blockExecPolicy
		}
		r.write(t, policy)
		if err := r.app.ReloadFile(r.path); err != nil {
			t.Fatalf("reload %d: %v", i, err)
		}
	}
	time.Sleep(60 * time.Millisecond)
	done.Store(true)
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d of %d requests failed across ten reloads; first: %s", failed.Load(), failed.Load()+ok.Load(), failures[0])
	}
	if ok.Load() < 40 {
		t.Fatalf("only %d requests ran during the reloads", ok.Load())
	}
	t.Logf("%d requests, none failed, across ten reloads", ok.Load())
}

func TestStreamInFlightFinishesOnItsOwnPolicy(t *testing.T) {
	r := startReloadable(t, blockExecPolicy)
	spec := mockupstream.StreamSpec{TextDeltas: 3, ToolCalls: 1, ArgFragments: 4}
	r.mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: 40 * time.Millisecond}))
	result := make(chan assembled, 1)
	go func() { result <- goOpenAIStream(t, r.app.URL()) }()
	// The stream has started under policy A once its request reached the
	// upstream: a request takes its runtime when it arrives.
	waitFor(t, "the stream's request upstream", func() bool { return len(r.mock.Requests()) == 1 })
	r.write(t, allowPolicy)
	if err := r.app.ReloadFile(r.path); err != nil {
		t.Fatal(err)
	}
	got := <-result
	if len(got.ToolCalls) != 0 || !strings.Contains(got.Content, "policy A") {
		t.Fatalf("the stream that started under policy A was judged by another: %s", got)
	}
	// A new request gets the new policy.
	r.mock.Enqueue(mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if got := goOpenAIStream(t, r.app.URL()); len(got.ToolCalls) != 1 {
		t.Fatalf("after the reload: %s", got)
	}
}

func TestBrokenReloadLeavesTheOldPolicyInForce(t *testing.T) {
	r := startReloadable(t, blockExecPolicy)
	r.write(t, "hooks:\n  - id: gate\n    event: pre_tool_use\n    matcher: \"(\"\n    handler: {type: script, source: 'function handle(e) { return {decision: \"allow\"}; }'}\n")
	err := r.app.ReloadFile(r.path)
	if err == nil || !strings.Contains(err.Error(), "matcher") {
		t.Fatalf("a broken configuration was accepted: %v", err)
	}
	r.mock.Enqueue(mockupstream.JSON(200, mockupstream.StreamSpec{ToolCalls: 1}.Completion()))
	if got := goOpenAIPlain(t, r.app.URL()); len(got.ToolCalls) != 0 || !strings.Contains(got.Content, "policy A") {
		t.Fatalf("the old policy is no longer in force: %s", got)
	}
	r.write(t, "hooks: [")
	if err := r.app.ReloadFile(r.path); err == nil {
		t.Fatal("unparseable YAML was accepted")
	}
}

func TestWatchReloadsAChangedFile(t *testing.T) {
	r := startReloadable(t, blockExecPolicy)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reports := make(chan error, 4)
	go r.app.Watch(ctx, r.path, 20*time.Millisecond, func(err error) { reports <- err })
	// The watcher starts from the file as it first finds it, which may
	// already be the changed one on a loaded machine: then the file
	// changes again, until a reload is reported.
	giveUp := time.After(20 * time.Second)
	for n := 0; ; n++ {
		r.write(t, allowPolicy+fmt.Sprintf("# change %d\n", n))
		select {
		case err := <-reports:
			if err != nil {
				t.Fatalf("reload: %v", err)
			}
		case <-time.After(250 * time.Millisecond):
			continue
		case <-giveUp:
			t.Fatal("the change was not noticed")
		}
		break
	}
	r.mock.Enqueue(mockupstream.JSON(200, mockupstream.StreamSpec{ToolCalls: 1}.Completion()))
	if got := goOpenAIPlain(t, r.app.URL()); len(got.ToolCalls) != 1 {
		t.Fatalf("the new policy is not in force: %s", got)
	}
}
