package oracle

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// geminiStack is a mock upstream and a hookgate with a gemini upstream in
// front of it, blocking every call. The mock answers each request by the
// model named in its path.
type geminiStack struct {
	mock    *mockupstream.Server
	app     *app.App
	n       atomic.Int64
	byModel sync.Map // model -> mockupstream.Response
}

func startGeminiStack(t testing.TB) *geminiStack {
	t.Helper()
	s := &geminiStack{mock: mockupstream.Start(t)}
	s.mock.Handle(func(r *mockupstream.Request) mockupstream.Response {
		model := ""
		if i := strings.LastIndex(r.Path, "/models/"); i >= 0 {
			model, _, _ = strings.Cut(r.Path[i+len("/models/"):], ":")
		}
		if resp, ok := s.byModel.Load(model); ok {
			return resp.(mockupstream.Response)
		}
		return mockupstream.JSON(404, []byte(`{"error":{"code":404,"message":"no answer scripted for model `+strconv.Quote(model)[1:]+`,"status":"NOT_FOUND"}}`))
	})
	s.app = startApp(t, "gemini", s.mock.URL())
	return s
}

// geminiResponse is what the mock answers for m.
func geminiResponse(m *geminiMutant, c mockupstream.Chunking) mockupstream.Response {
	var r mockupstream.Response
	switch m.form {
	case geminiSSE:
		r = mockupstream.Stream(m.body(), c)
	case geminiArray:
		// hookgate takes a response for a stream by its media type: the
		// array is served as an event stream so that its stream path is
		// read (the content-type class serves it as Gemini's
		// application/json).
		r = mockupstream.Stream(m.body(), c)
	default:
		r = mockupstream.JSON(200, m.body())
	}
	if m.contentType != "" {
		r.Header.Set("Content-Type", m.contentType)
	}
	if m.status != 0 {
		r.Status = m.status
	}
	return r
}

// judge serves m from the mock and reads it with every oracle of its form
// through hookgate, and directly too when direct is set.
func (s *geminiStack) judge(ctx context.Context, m *geminiMutant, c mockupstream.Chunking, direct bool) verdict {
	model := "oracle-" + strconv.FormatInt(s.n.Add(1), 10)
	s.byModel.Store(model, geminiResponse(m, c))
	defer s.byModel.Delete(model)
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	var v verdict
	for _, o := range geminiOraclesFor(m.form) {
		v.through = append(v.through, o.read(ctx, s.app.URL(), model))
		if direct {
			v.direct = append(v.direct, o.read(ctx, s.mock.URL(), model))
		}
	}
	return v
}
