package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
)

// stubServer stands in, on loopback, for the command, http and prompt
// hooks a replay does not run: each is turned into an http hook posting
// here, and answers what the same hook decided at capture time (block with
// its reason, or allow), noting the event as not replayed for it.
type stubServer struct {
	srv *http.Server
	ln  net.Listener
	sb  *standins

	mu  sync.Mutex
	ids []string // hook ids by the index in their path
}

func newStubServer(sb *standins) (*stubServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("replay: stub server: %w", err)
	}
	s := &stubServer{ln: ln, sb: sb}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook/{n}", s.serve)
	s.srv = &http.Server{Handler: mux}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *stubServer) Close() error { return s.srv.Close() }

// url registers hook id and returns the address its stand-in answers on.
func (s *stubServer) url(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, id)
	return fmt.Sprintf("http://%s/hook/%d", s.ln.Addr(), len(s.ids)-1)
}

func (s *stubServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<22))
	n, err := strconv.Atoi(r.PathValue("n"))
	s.mu.Lock()
	ok := err == nil && n >= 0 && n < len(s.ids)
	var id string
	if ok {
		id = s.ids[n]
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such hook", http.StatusNotFound)
		return
	}
	eventID := r.Header.Get("X-Hookgate-Event-Id")
	answer := map[string]string{"decision": string(hooks.Allow)}
	s.sb.mu.Lock()
	s.sb.notReplayed[eventID] = append(s.sb.notReplayed[eventID], id)
	if c := s.sb.byEvent[eventID]; c != nil {
		for _, h := range c.Record.Outcome.Hooks {
			if h.ID == id && (h.Decision == hooks.Block || h.Applied == hooks.Block) {
				answer = map[string]string{"decision": string(hooks.Block), "reason": h.Reason}
			}
		}
	}
	s.sb.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// offline is cfg as a replay without live hooks compiles it: tenants'
// hooks files read into the hook list (so that theirs are stood in for
// too), every command, http and prompt hook an http hook of the stub
// server without a breaker, upstreams without keys, rate limits in memory.
func offline(cfg *config.Config, stubs *stubServer) (*config.Config, error) {
	c := *cfg
	c.Upstreams = make([]config.Upstream, len(cfg.Upstreams))
	for i, u := range cfg.Upstreams {
		u.APIKey = ""
		c.Upstreams[i] = u
	}
	all := append([]hooks.Spec(nil), cfg.Hooks...)
	c.Tenants = make([]config.Tenant, len(cfg.Tenants))
	for i := range cfg.Tenants {
		specs, err := config.LoadTenantHooks(&cfg.Tenants[i], cfg.BaseDir)
		if err != nil {
			return nil, fmt.Errorf("tenant %s: %w", cfg.Tenants[i].ID, err)
		}
		all = append(all, specs...)
		c.Tenants[i] = cfg.Tenants[i]
		c.Tenants[i].HooksFile = ""
	}
	c.Hooks = make([]hooks.Spec, len(all))
	for i, spec := range withLocalRateLimits(&config.Config{Hooks: all}).Hooks {
		switch spec.Handler.Type {
		case "command", "http", "prompt":
			spec.Handler = hooks.HandlerSpec{Type: "http", URL: stubs.url(spec.ID)}
			spec.Breaker = &hooks.BreakerSpec{Disabled: true}
		}
		c.Hooks[i] = spec
	}
	return &c, nil
}
