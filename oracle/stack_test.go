package oracle

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/apptest"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// blockEveryCall is the policy of every run: each tool call is blocked, so
// any call an oracle reads through hookgate is one that got past it.
const blockEveryCall = `hooks:
  - id: block-all
    event: pre_tool_use
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "oracle blocks every call" }; }
`

// stack is one mock upstream and two hookgates in front of it, one with an
// openai upstream (chat completions, Responses) and one with an anthropic
// upstream (Messages). The mock answers each request by its model.
type stack struct {
	mock              *mockupstream.Server
	openai, anthropic *app.App
	n                 atomic.Int64
	byModel           sync.Map // model -> mockupstream.Response
}

func startStack(t testing.TB) *stack {
	t.Helper()
	s := &stack{mock: mockupstream.Start(t)}
	s.mock.Handle(func(r *mockupstream.Request) mockupstream.Response {
		model := gjson.GetBytes(r.Body, "model").String()
		if resp, ok := s.byModel.Load(model); ok {
			return resp.(mockupstream.Response)
		}
		return mockupstream.Error(404, "model_not_found", "no answer scripted for model "+strconv.Quote(model))
	})
	s.openai = startApp(t, "openai", s.mock.URL())
	s.anthropic = startApp(t, "anthropic", s.mock.URL())
	return s
}

func startApp(t testing.TB, provider, upstream string) *app.App {
	t.Helper()
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    provider: " + provider +
		"\n    base_url: " + upstream + "\n" + blockEveryCall +
		"store:\n  path: " + filepath.Join(t.TempDir(), "hookgate.db") + "\n"
	return apptest.Start(t, doc, "oracle.yaml", io.Discard, slog.LevelInfo)
}

// chunkings are the ways the mock cuts a streamed body into writes.
var chunkings = []mockupstream.Chunking{
	{Mode: mockupstream.PerEvent},
	{Mode: mockupstream.Whole},
	{Mode: mockupstream.Random, Size: 17, Seed: 7},
	{Mode: mockupstream.FixedSize, Size: 1},
}

// response is what the mock answers for m.
func response(m mutant, c mockupstream.Chunking) mockupstream.Response {
	var r mockupstream.Response
	if m.api.streamed() {
		r = mockupstream.Stream(m.body, c)
	} else {
		r = mockupstream.JSON(200, m.body)
	}
	if m.status != 0 {
		r.Status = m.status
	}
	return r
}

// verdict is what the oracles read of one mutant, through hookgate and
// (when asked) directly from the mock.
type verdict struct {
	through []reading
	direct  []reading
}

// leaks lists every call an oracle read through hookgate.
func (v verdict) leaks() []call {
	var out []call
	for _, r := range v.through {
		out = append(out, r.Calls...)
	}
	return out
}

// live reports whether some oracle reads a call directly from the mock:
// the mutation left a call a client would run.
func (v verdict) live() bool {
	for _, r := range v.direct {
		if len(r.Calls) > 0 {
			return true
		}
	}
	return false
}

func (v verdict) String() string {
	var b strings.Builder
	for _, r := range v.through {
		b.WriteString("\n    through hookgate, " + r.Oracle + ": ")
		if r.Err != "" {
			b.WriteString("error " + strconv.Quote(firstLine(r.Err, 160)) + "; ")
		}
		for _, c := range r.Calls {
			b.WriteString("\n      " + c.String())
		}
		if len(r.Calls) == 0 && r.Err == "" {
			b.WriteString("no call")
		}
	}
	return b.String()
}

func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// judge serves m from the mock and reads it with every oracle of its
// format through hookgate, and directly too when direct is set.
func (s *stack) judge(ctx context.Context, m mutant, c mockupstream.Chunking, direct bool) verdict {
	model := "oracle-" + strconv.FormatInt(s.n.Add(1), 10)
	s.byModel.Store(model, response(m, c))
	defer s.byModel.Delete(model)
	base := s.openai.URL()
	if m.api.messages() {
		base = s.anthropic.URL()
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	var v verdict
	for _, o := range oraclesFor(m.api) {
		v.through = append(v.through, o.read(ctx, base, model))
		if direct {
			v.direct = append(v.direct, o.read(ctx, s.mock.URL(), model))
		}
	}
	return v
}
