package proxy_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
)

// recordingUpstream is a net/http server on loopback that keeps the
// headers and raw query of every request it receives and answers with
// body.
type recordingUpstream struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []*http.Request
}

func startRecordingUpstream(t *testing.T, contentType, body string) *recordingUpstream {
	t.Helper()
	u := &recordingUpstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		u.mu.Lock()
		u.seen = append(u.seen, r.Clone(r.Context()))
		u.mu.Unlock()
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *recordingUpstream) requests() []*http.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*http.Request(nil), u.seen...)
}

// startKeyedStack starts hookgate with one upstream of provider whose
// credential hookgate holds (api_key_env), with extra YAML.
func startKeyedStack(t *testing.T, upstream, provider, key, extra string) *routeStack {
	t.Helper()
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nstore:\n  path: " + filepath.Join(t.TempDir(), "hookgate.db") +
		"\nupstreams:\n  - name: keyed\n    provider: " + provider + "\n    base_url: " + upstream + "\n    api_key_env: HG_TEST_UPSTREAM_KEY\n" + extra
	lookup := func(name string) (string, bool) {
		if name == "HG_TEST_UPSTREAM_KEY" {
			return key, true
		}
		return "", false
	}
	cfg, err := config.Parse([]byte(doc), "credentials-test.yaml", lookup)
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	a, err := app.Build(cfg, slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return &routeStack{app: a, log: log}
}

const plainCompletion = `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`

const plainMessage = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`

// With api_key_env set, hookgate's key is the only credential the
// upstream receives: every header and query form a client may carry its
// own key in is removed, in every spelling, and none of them is logged.
func TestClientCredentialsNeverReachTheUpstream(t *testing.T) {
	const hookgateKey = "hg-upstream-KEY-1234"
	cases := []struct {
		name     string
		header   map[string]string
		query    string
		keptQ    string // the raw query the upstream must see
		secretIn string // the client secret this case sends
	}{
		{name: "Authorization", header: map[string]string{"Authorization": "Bearer client-SECRET-a"}, secretIn: "client-SECRET-a"},
		{name: "authorization lower case", header: map[string]string{"authorization": "Bearer client-SECRET-b"}, secretIn: "client-SECRET-b"},
		{name: "x-api-key", header: map[string]string{"x-api-key": "client-SECRET-c"}, secretIn: "client-SECRET-c"},
		{name: "X-API-KEY", header: map[string]string{"X-API-KEY": "client-SECRET-d"}, secretIn: "client-SECRET-d"},
		{name: "api-key (Azure)", header: map[string]string{"api-key": "client-SECRET-e"}, secretIn: "client-SECRET-e"},
		{name: "Api-Key", header: map[string]string{"Api-Key": "client-SECRET-f"}, secretIn: "client-SECRET-f"},
		{name: "x-goog-api-key", header: map[string]string{"x-goog-api-key": "client-SECRET-g"}, secretIn: "client-SECRET-g"},
		{name: "X-Goog-Api-Key", header: map[string]string{"X-Goog-Api-Key": "client-SECRET-h"}, secretIn: "client-SECRET-h"},
		{name: "key first", query: "key=client-SECRET-i&alt=sse", keptQ: "alt=sse", secretIn: "client-SECRET-i"},
		{name: "key last", query: "alt=sse&key=client-SECRET-j", keptQ: "alt=sse", secretIn: "client-SECRET-j"},
		{name: "key middle", query: "a=1&key=client-SECRET-k&b=2", keptQ: "a=1&b=2", secretIn: "client-SECRET-k"},
		{name: "key alone", query: "key=client-SECRET-l", keptQ: "", secretIn: "client-SECRET-l"},
		{name: "KEY upper case", query: "KEY=client-SECRET-m&a=1", keptQ: "a=1", secretIn: "client-SECRET-m"},
		{name: "percent-encoded name", query: "%6Bey=client-SECRET-n&a=1", keptQ: "a=1", secretIn: "client-SECRET-n"},
		{name: "percent-encoded upper", query: "a=1&k%45Y=client-SECRET-o", keptQ: "a=1", secretIn: "client-SECRET-o"},
		{name: "key twice", query: "key=client-SECRET-p&key=client-SECRET-p", keptQ: "", secretIn: "client-SECRET-p"},
		{name: "key after semicolon", query: "a=1;key=client-SECRET-q&b=2", keptQ: "b=2", secretIn: "client-SECRET-q"},
		{name: "key without value", query: "key&a=1", keptQ: "a=1"},
		{name: "look-alike names stay", query: "keys=1&monkey=2&key_id=3", keptQ: "keys=1&monkey=2&key_id=3"},
		{name: "every form at once", header: map[string]string{"Authorization": "Bearer client-SECRET-r", "x-api-key": "client-SECRET-r", "api-key": "client-SECRET-r", "x-goog-api-key": "client-SECRET-r"}, query: "key=client-SECRET-r", keptQ: "", secretIn: "client-SECRET-r"},
	}
	routes := []struct {
		provider, path, wantHeader, wantValue, body string
	}{
		{"openai", "/v1/chat/completions", "Authorization", "Bearer " + hookgateKey, plainCompletion},
		{"anthropic", "/v1/messages", "X-Api-Key", hookgateKey, plainMessage},
	}
	for _, rt := range routes {
		for _, hooks := range []string{"", denyHook} {
			up := startRecordingUpstream(t, "application/json", rt.body)
			s := startKeyedStack(t, up.srv.URL, rt.provider, hookgateKey, hooks)
			for _, c := range cases {
				name := rt.provider + "/" + c.name
				if hooks != "" {
					name += "/with hooks"
				}
				t.Run(name, func(t *testing.T) {
					before := len(up.requests())
					target := rt.path
					if c.query != "" {
						target += "?" + c.query
					}
					resp, body := rawRequest(t, s.app.URL(), "POST", target, c.header, `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`)
					if resp.StatusCode != 200 {
						t.Fatalf("status %d: %s", resp.StatusCode, body)
					}
					seen := up.requests()
					if len(seen) != before+1 {
						t.Fatalf("the upstream received %d requests, want 1", len(seen)-before)
					}
					r := seen[len(seen)-1]
					for _, h := range []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key"} {
						got := r.Header.Values(h)
						if h == rt.wantHeader {
							if len(got) != 1 || got[0] != rt.wantValue {
								t.Errorf("upstream %s = %q, want only hookgate's key", h, got)
							}
						} else if len(got) != 0 {
							t.Errorf("upstream received %s = %q beside hookgate's key", h, got)
						}
					}
					if c.query != "" && r.URL.RawQuery != c.keptQ {
						t.Errorf("upstream query %q, want %q", r.URL.RawQuery, c.keptQ)
					}
					for k, vs := range r.Header {
						for _, v := range vs {
							if c.secretIn != "" && strings.Contains(v, c.secretIn) {
								t.Errorf("upstream header %s carries the client's secret: %q", k, v)
							}
						}
					}
					if c.secretIn != "" && strings.Contains(r.URL.RawQuery, c.secretIn) {
						t.Errorf("upstream query carries the client's secret: %q", r.URL.RawQuery)
					}
				})
			}
			// A refused route and an unreachable route log, too: neither
			// may name a key.
			rawRequest(t, s.app.URL(), "GET", "/v1/nowhere?key=client-SECRET-z", map[string]string{"api-key": "client-SECRET-z"}, "")
			log := s.log.String()
			if strings.Contains(log, "SECRET") || strings.Contains(log, hookgateKey) {
				t.Errorf("%s: the log names a key:\n%s", rt.provider, log)
			}
		}
	}
}

// Without api_key_env the client's own credential is the one that goes
// upstream, untouched.
func TestClientCredentialPassesWhenHookgateHoldsNone(t *testing.T) {
	up := startRecordingUpstream(t, "application/json", plainCompletion)
	s := startRouteStack(t, up.srv.URL, "")
	resp, body := rawRequest(t, s.app.URL(), "POST", "/v1/chat/completions?key=own&a=1", map[string]string{"api-key": "own-key", "Authorization": "Bearer own"}, `{"model":"m","messages":[]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	r := up.requests()[0]
	if r.Header.Get("Api-Key") != "own-key" || r.Header.Get("Authorization") != "Bearer own" || r.URL.RawQuery != "key=own&a=1" {
		t.Errorf("the client's credential did not pass as sent: %v %q", r.Header, r.URL.RawQuery)
	}
}
