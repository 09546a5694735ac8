//go:build agents

package agents

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
)

// networkSentinel is the proxy an agent's environment names for every
// destination but loopback: it answers nothing and records the first line
// of each connection (a CONNECT host:443, or a plain request line), so a
// run whose agent reached for the internet (a models list, an update
// check, a package install) fails, naming where it went. Only clients that
// honour HTTPS_PROXY and friends are caught (opencode's runtime and the npm
// installer inside it do; Node 20's fetch does not), so this is a net
// under the agents' own switches, not a replacement for them.
type networkSentinel struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
}

// newNetworkSentinel listens on loopback until the test ends.
func newNetworkSentinel(t *testing.T) *networkSentinel {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &networkSentinel{ln: ln}
	go s.serve()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *networkSentinel) serve() {
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			line, _ := bufio.NewReader(conn).ReadString('\n')
			s.mu.Lock()
			s.seen = append(s.seen, strings.TrimSpace(line))
			s.mu.Unlock()
		}()
	}
}

// env sends every destination but loopback to the sentinel.
func (s *networkSentinel) env() []string {
	proxy := "http://" + s.ln.Addr().String()
	noProxy := "127.0.0.1,localhost,::1"
	return []string{
		"HTTPS_PROXY=" + proxy, "https_proxy=" + proxy,
		"HTTP_PROXY=" + proxy, "http_proxy=" + proxy,
		"ALL_PROXY=" + proxy, "all_proxy=" + proxy,
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy,
	}
}

// assertUnused fails the test if any connection reached the sentinel.
func (s *networkSentinel) assertUnused(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) > 0 {
		t.Errorf("the agent reached for the network beyond loopback (%d connections): %s", len(s.seen), strings.Join(s.seen, "; "))
	}
}

// execOffline is (*run).Exec with the sentinel as the agent's proxy,
// failing the test if the agent used it.
func execOffline(t *testing.T, r *run, name string, args, env []string) string {
	t.Helper()
	s := newNetworkSentinel(t)
	out := r.Exec(t, name, args, append(env, s.env()...), "")
	s.assertUnused(t)
	return out
}
