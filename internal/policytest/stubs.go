package policytest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
)

// stubServer answers http hooks and prompt hooks' judges on loopback from
// the running case's stubs. The hooks' own handlers make the requests, as
// they would to a policy server or a model: only the address is changed.
// A hook reached without a stub gets a 503, as from a server that is not
// there (so it fails closed), and its case fails naming it.
type stubServer struct {
	srv  *http.Server
	ln   net.Listener
	base string

	mu     sync.Mutex
	ledger *ledger
	// ids are the hook ids by the index in their stub path.
	ids []string
}

func newStubServer() (*stubServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("stub server: %w", err)
	}
	s := &stubServer{ln: ln, base: "http://" + ln.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /http/{n}", s.serveHTTPHook)
	mux.HandleFunc("POST /judge/{n}/", s.serveJudge)
	s.srv = &http.Server{Handler: mux}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *stubServer) Close() error { return s.srv.Close() }

// use sets the ledger of the file now running and the hook ids its paths
// name.
func (s *stubServer) use(l *ledger, ids []string) {
	s.mu.Lock()
	s.ledger, s.ids = l, ids
	s.mu.Unlock()
}

// stub finds the canned answer for hook n in the run of eventID.
func (s *stubServer) stub(n, eventID, kind string) (Stub, bool) {
	s.mu.Lock()
	l, ids := s.ledger, s.ids
	s.mu.Unlock()
	i, err := strconv.Atoi(n)
	if l == nil || err != nil || i < 0 || i >= len(ids) {
		return Stub{}, false
	}
	id := ids[i]
	var st Stub
	var ok bool
	l.with(eventID, func(rs *state) {
		st, ok = rs.stubs[id]
		if ok {
			rs.stubbed = append(rs.stubbed, id)
			return
		}
		rs.problems = append(rs.problems, fmt.Sprintf("%s hook %s was reached and the test file gives it no stub (stub: {%s: {decision: allow}}); hookgate test never calls it", kind, id, id))
	})
	return st, ok
}

func (s *stubServer) serveHTTPHook(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	st, ok := s.stub(r.PathValue("n"), r.Header.Get("X-Hookgate-Event-Id"), "http")
	if !ok {
		http.Error(w, "no stub", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(st)
}

// serveJudge answers a prompt hook's chat completion with the stub as its
// verdict. The event the judge is asked about is the user message.
func (s *stubServer) serveJudge(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<22)).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var ev struct {
		EventID string `json:"eventId"`
	}
	for _, m := range req.Messages {
		if m.Role == "user" {
			_ = json.Unmarshal([]byte(m.Content), &ev)
		}
	}
	st, ok := s.stub(r.PathValue("n"), ev.EventID, "prompt")
	if !ok {
		http.Error(w, `{"error":{"message":"no stub"}}`, http.StatusServiceUnavailable)
		return
	}
	verdict, _ := json.Marshal(map[string]string{"decision": string(st.Decision), "reason": st.Reason})
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "policytest", "object": "chat.completion", "model": "policytest-stub",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": string(verdict)}}},
	})
}

// offline is cfg as `hookgate test` compiles it: http hooks post to the
// stub server, prompt hooks ask it as their judge (both without a circuit
// breaker), upstreams carry no key, and rate limits count in memory. It returns the hook ids the stub paths
// name and the kind (http, prompt) of each remote hook by id.
func offline(cfg *config.Config, stubBase string) (*config.Config, []string, map[string]string) {
	c := *cfg
	c.Upstreams = make([]config.Upstream, len(cfg.Upstreams))
	for i, u := range cfg.Upstreams {
		u.APIKey = ""
		c.Upstreams[i] = u
	}
	c.Hooks = make([]hooks.Spec, len(cfg.Hooks))
	var ids []string
	remote := map[string]string{}
	for i, spec := range cfg.Hooks {
		h := spec.Handler
		switch h.Type {
		case "http":
			h.URL = fmt.Sprintf("%s/http/%d", stubBase, len(ids))
			h.Headers = nil // credentials stay out of the test
			remote[spec.ID] = "http"
			ids = append(ids, spec.ID)
		case "prompt":
			name := fmt.Sprintf("policytest-judge-%d", len(ids))
			c.Upstreams = append(c.Upstreams, config.Upstream{Name: name, Provider: "openai", BaseURL: fmt.Sprintf("%s/judge/%d", stubBase, len(ids))})
			h.Upstream = name
			remote[spec.ID] = "prompt"
			ids = append(ids, spec.ID)
		case "builtin":
			if _, shared := h.With["redis"]; shared && h.Name == "rate_limit" {
				h.With = maps.Clone(h.With)
				delete(h.With, "redis")
			}
		}
		if remote[spec.ID] != "" {
			// Each case is answered on its own: a breaker opened by one
			// case's missing stub must not answer the next case.
			spec.Breaker = &hooks.BreakerSpec{Disabled: true}
		}
		spec.Handler = h
		c.Hooks[i] = spec
	}
	return &c, ids, remote
}
