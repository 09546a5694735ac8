package e2e

// Three `hookgate serve` processes behind a real nginx, on one PostgreSQL
// (a fresh database, reached through a loopback TCP relay the test can
// cut) and one Redis: they behave as one service.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookgate/hookgate/internal/mockupstream"
	"github.com/hookgate/hookgate/internal/testenv"
)

// fleetInstance is one `hookgate serve` process.
type fleetInstance struct {
	cmd        *exec.Cmd
	url, admin string
	log        *hgLog
}

func TestFleetThreeInstancesBehindNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary, nginx, PostgreSQL and Redis")
	}
	nginxBin := testenv.Nginx(t)
	dsn := testenv.Postgres(t)
	redisAddr := testenv.Redis(t)
	run := strconv.FormatInt(time.Now().UnixNano(), 36)

	// A database of its own, reached through a relay that can be cut.
	fleetDSN, dbURL := fleetDatabase(t, dsn, "hookgate_fleet_"+run)
	relay := startRelay(t, dbURL.Host)
	dbURL.Host = relay.addr()
	t.Setenv("FLEET_PG_DSN", dbURL.String())
	t.Setenv("HOOKGATE_REDIS_ADDR", redisAddr)
	t.Setenv("E2E_ALICE_TOKEN", "tok-alice-secret")
	t.Setenv("E2E_OPS_SECRET", "ops-signing-secret")

	desk := &cardDesk{}
	deskURL := desk.serve(t)
	mock := mockupstream.Start(t)
	mock.Handle(fleetUpstream)

	bin := buildHookgate(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "hookgate.yaml")
	if err := os.WriteFile(cfgPath, []byte(fleetConfig(mock.URL(), deskURL, "hookgate:fleet:"+run+":")), 0o600); err != nil {
		t.Fatal(err)
	}
	fleet := make([]*fleetInstance, 3)
	for i := range fleet {
		fleet[i] = startFleetInstance(t, bin, cfgPath)
	}
	lb := startNginx(t, nginxBin, fleet)

	t.Run("approval answered on another instance", func(t *testing.T) {
		held := make(chan []byte, 1)
		go func() {
			_, _, body := rawPost(t, fleet[0].url, "/v1/chat/completions", fleetRequest("pay"), fleetSession("approval"))
			held <- body
		}()
		id := desk.waitCard(t, 1)
		if status, body := adminPost(t, fleet[2].admin+"/admin/approvals/"+id+"/approve", "tok-alice-secret"); status != 200 {
			t.Fatalf("approve on the third instance: %d %s", status, body)
		}
		select {
		case body := <-held:
			if !bytes.Contains(body, []byte(`"name":"pay"`)) {
				t.Fatalf("the call held on the first instance was not released:\n%s", body)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the held call was not released within 10 s")
		}
	})

	t.Run("shared Redis rate limit", func(t *testing.T) {
		released := 0
		for i := range 6 {
			_, _, body := rawPost(t, lb, "/v1/chat/completions", fleetRequest("fetch"), fleetSession("rate-"+strconv.Itoa(i)))
			if bytes.Contains(body, []byte(`"name":"fetch"`)) {
				released++
			}
		}
		if released != 3 {
			t.Fatalf("%d of 6 fetch calls released across the fleet, want the shared budget of 3", released)
		}
	})

	t.Run("once-per-session hook runs once across instances", func(t *testing.T) {
		session := fleetSession("once")
		for _, in := range fleet {
			if status, _, body := rawPost(t, in.url, "/v1/chat/completions", fleetRequest("hello"), session); status != 200 {
				t.Fatalf("%s: %d %s", in.url, status, body)
			}
		}
		waitQueuesEmpty(t, fleet)
		if n := countRows(t, fleetDSN, "select count(*) from hook_executions where hook_id = 'ctx' and session_id = $1", session["X-Session-Id"]); n != 1 {
			t.Fatalf("session_start ran %d times for one session on three instances, want 1", n)
		}
	})

	t.Run("read-only switch reaches every instance", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, fleet[0].admin+"/admin/tenants/*/readonly", strings.NewReader(`{"read_only":true}`))
		req.Header.Set("Authorization", "Bearer tok-alice-secret")
		resp, err := httpClient().Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("switch on: %v %v", err, resp)
		}
		resp.Body.Close()
		thrown := time.Now()
		for _, in := range fleet {
			for {
				_, _, body := rawPost(t, in.url, "/v1/chat/completions", fleetRequest("deploy"), fleetSession("ro"))
				if !bytes.Contains(body, []byte(`"name":"deploy"`)) {
					break
				}
				if time.Since(thrown) > 3*time.Second {
					t.Fatalf("%s still releases deploy 3 s after the switch", in.url)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		t.Logf("read-only switch enforced on all three within %s", time.Since(thrown).Round(time.Millisecond))
	})

	t.Run("kill -9 mid-stream", func(t *testing.T) {
		resp, err := http.Post(lb+"/v1/chat/completions", "application/json", bytes.NewReader(fleetRequest("wipe")))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		victim := -1
		for deadline := time.Now().Add(5 * time.Second); victim < 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			for i, in := range fleet {
				if fleetMetric(t, in.admin, "hookgate_active_streams") > 0 {
					victim = i
				}
			}
		}
		if victim < 0 {
			t.Fatal("no instance serves the stream")
		}
		if err := fleet[victim].cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		rest, readErr := io.ReadAll(r)
		if bytes.Contains(rest, []byte(`"name":"wipe"`)) {
			t.Fatalf("the blocked call came out of a killed instance:\n%s", rest)
		}
		if readErr == nil && bytes.Contains(rest, []byte("data: [DONE]")) {
			t.Fatalf("the stream of a killed instance ended as if whole:\n%s", rest)
		}
		fleet = append(fleet[:victim:victim], fleet[victim+1:]...)
		for i := range 4 {
			status, _, body := rawPost(t, lb, "/v1/chat/completions", fleetRequest("hello"), fleetSession("after-kill-"+strconv.Itoa(i)))
			if status != 200 || !bytes.Contains(body, []byte("data: [DONE]")) {
				t.Fatalf("request %d after the kill: %d %s", i, status, body)
			}
		}
	})

	t.Run("PostgreSQL unreachable", func(t *testing.T) {
		waitQueuesEmpty(t, fleet)
		decisions0 := sumMetric(t, fleet, "hookgate_hook_decisions_total")
		rows0 := countRows(t, fleetDSN, "select count(*) from hook_executions")
		// Records in flight when the database goes.
		for i := range 4 {
			rawPost(t, lb, "/v1/chat/completions", fleetRequest("hello"), fleetSession("pre-cut-"+strconv.Itoa(i)))
		}
		relay.cut()
		cutAt := time.Now()
		status, header, body := rawPost(t, lb, "/v1/chat/completions", fleetRequest("pay"), fleetSession("cut-pay"))
		// Fail closed, in hookgate's own answer (never nginx's HTML): a
		// 503 in the API's JSON error shape, or the call blocked.
		failedClosed := status == 503 && strings.Contains(header.Get("Content-Type"), "json") ||
			status == 200 && !bytes.Contains(body, []byte(`"name":"pay"`))
		if !failedClosed {
			t.Fatalf("a call needing the store, during the outage: %d %s %s", status, header.Get("Content-Type"), body)
		}
		t.Logf("during the outage: %d %s", status, hgShort(body))
		for _, in := range fleet {
			var rep string
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				var code int
				code, rep = readyz(t, in.admin)
				if code != 200 {
					t.Fatalf("%s left readiness during a PostgreSQL outage: %d %s", in.admin, code, rep)
				}
				if strings.Contains(rep, `"postgres":{"up":false`) {
					break
				}
			}
			if !strings.Contains(rep, `"postgres":{"up":false`) {
				t.Fatalf("%s does not report PostgreSQL down: %s", in.admin, rep)
			}
			if fleetMetric(t, in.admin, `hookgate_dependency_up{dependency="postgres"}`) != 0 {
				t.Errorf("%s: hookgate_dependency_up{postgres} is not 0", in.admin)
			}
		}
		time.Sleep(time.Until(cutAt.Add(10 * time.Second)))
		relay.restore()

		for _, in := range fleet {
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				if _, rep := readyz(t, in.admin); strings.Contains(rep, `"postgres":{"up":true`) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s does not see PostgreSQL back", in.admin)
				}
			}
		}
		for i := range 3 {
			status, _, body := rawPost(t, lb, "/v1/chat/completions", fleetRequest("hello"), fleetSession("after-cut-"+strconv.Itoa(i)))
			if status != 200 || !bytes.Contains(body, []byte("data: [DONE]")) {
				t.Fatalf("after the outage: %d %s", status, body)
			}
		}
		waitQueuesEmpty(t, fleet)
		decisions := sumMetric(t, fleet, "hookgate_hook_decisions_total") - decisions0
		rows := countRows(t, fleetDSN, "select count(*) from hook_executions") - rows0
		if decisions == 0 || int64(decisions) != rows {
			t.Fatalf("%v hook decisions but %d audit rows written across the outage", decisions, rows)
		}
		t.Logf("across the outage: %v hook decisions, %d audit rows", decisions, rows)
		if d := sumMetric(t, fleet, "hookgate_audit_records_dropped_total"); d != 0 {
			t.Fatalf("%v audit records dropped", d)
		}
	})
}

// fleetConfig is the three instances' one configuration file.
func fleetConfig(mock, desk, redisPrefix string) string {
	return `listen: 127.0.0.1:0
upstreams:
  - name: mock
    base_url: ` + mock + `
admin:
  listen: 127.0.0.1:0
  tokens:
    - {name: alice, token_env: E2E_ALICE_TOKEN}
store:
  driver: postgres
  dsn: ${FLEET_PG_DSN}
timeouts:
  heartbeat: 100ms
  drain_delay: 0s
channels:
  - name: ops
    type: webhook
    url: ` + desk + `
    secret_env: E2E_OPS_SECRET
hooks:
  - id: ctx
    event: session_start
    handler: {type: builtin, name: inject_context, with: {text: "Fleet policy applies."}}
  - id: pay-approval
    event: pre_tool_use
    matcher: "^pay$"
    handler: {type: builtin, name: approval, with: {channel: ops, timeout_s: 30}}
  - id: fetch-budget
    event: pre_tool_use
    matcher: "^fetch$"
    handler: {type: builtin, name: rate_limit, with: {limit: 3, window: 1m, redis: {key_prefix: "` + redisPrefix + `"}}}
  - id: ro
    event: pre_tool_use
    handler: {type: builtin, name: readonly_guard, with: {tools: [deploy]}}
  - id: no-wipe
    event: pre_tool_use
    matcher: "^wipe$"
    handler: {type: builtin, name: deny_patterns, with: {patterns: ["."]}}
`
}

// fleetUpstream answers by the user's word: a call of that tool (wipe
// slowly, after 40 text deltas), or text.
func fleetUpstream(req *mockupstream.Request) mockupstream.Response {
	for _, tool := range []string{"pay", "fetch", "deploy", "wipe"} {
		if bytes.Contains(req.Body, []byte(`"content":"`+tool+`"`)) {
			spec := mockupstream.StreamSpec{Texts: []string{"On it."}, Calls: []mockupstream.ToolCall{{ID: "call_" + tool, Name: tool, Arguments: `{"x":1}`}}}
			c := mockupstream.Chunking{Mode: mockupstream.PerEvent}
			if tool == "wipe" {
				spec = mockupstream.StreamSpec{TextDeltas: 40, Calls: spec.Calls}
				c.Interval = 100 * time.Millisecond
			}
			return mockupstream.Stream(spec.SSE(), c)
		}
	}
	spec := mockupstream.StreamSpec{Texts: []string{"Hello."}}
	return mockupstream.Stream(spec.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent})
}

func fleetRequest(word string) []byte {
	return []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"` + word + `"}]}`)
}

var fleetRun = strconv.FormatInt(time.Now().UnixNano(), 36)

func fleetSession(name string) map[string]string {
	return map[string]string{"X-Session-Id": "fleet-" + fleetRun + "-" + name}
}

// startFleetInstance runs `hookgate serve` on cfg.
func startFleetInstance(t *testing.T, bin, cfg string) *fleetInstance {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--config", cfg, "--watch", "0")
	log := &hgLog{}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			log.Write([]byte(sc.Text() + "\n"))
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1:3]
			}
		}
	}()
	select {
	case u := <-found:
		return &fleetInstance{cmd: cmd, url: u[0], admin: u[1], log: log}
	case <-time.After(30 * time.Second):
		t.Fatalf("hookgate serve did not start:\n%s", log.String())
		return nil
	}
}

// startNginx runs nginx in the foreground, as the test's child, with a
// prefix and configuration of its own, balancing over the fleet; it
// returns its base URL.
func startNginx(t *testing.T, bin string, fleet []*fleetInstance) string {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t)
	var servers strings.Builder
	for _, in := range fleet {
		fmt.Fprintf(&servers, "    server %s max_fails=1 fail_timeout=30s;\n", hgHost(in.url))
	}
	conf := `daemon off;
master_process off;
worker_processes 1;
error_log stderr warn;
pid ` + dir + `/nginx.pid;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ` + dir + `/body;
  proxy_temp_path ` + dir + `/proxy;
  fastcgi_temp_path ` + dir + `/fastcgi;
  uwsgi_temp_path ` + dir + `/uwsgi;
  scgi_temp_path ` + dir + `/scgi;
  upstream hookgate {
` + servers.String() + `    keepalive 8;
  }
  server {
    listen 127.0.0.1:` + strconv.Itoa(port) + `;
    location / {
      proxy_pass http://hookgate;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 60s;
    }
  }
}
`
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", path, "-e", "stderr")
	var log bytes.Buffer
	cmd.Stderr, cmd.Stdout = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", hgHost(base)); err == nil {
			c.Close()
			return base
		}
	}
	t.Fatalf("nginx did not listen:\n%s", log.String())
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// fleetDatabase creates a fresh database on the server of dsn, dropped
// when the test ends, and returns its DSN (direct) and URL.
func fleetDatabase(t *testing.T, dsn, name string) (string, *url.URL) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, dsn); err == nil {
			c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	direct := u.String()
	u2 := *u
	return direct, &u2
}

// countRows runs a count query on the database directly.
func countRows(t *testing.T, dsn, query string, args ...any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// fleetMetric reads one unlabelled series (or one written with its
// labels) from an instance's /metrics; -1 when absent.
func fleetMetric(t *testing.T, admin, series string) float64 {
	t.Helper()
	resp, err := httpClient().Get(admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

// sumMetric adds every series of a metric over the fleet.
func sumMetric(t *testing.T, fleet []*fleetInstance, name string) float64 {
	t.Helper()
	total := 0.0
	for _, in := range fleet {
		resp, err := httpClient().Get(in.admin + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") {
				f, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
				total += f
			}
		}
		resp.Body.Close()
	}
	return total
}

// waitQueuesEmpty waits until every instance's audit queue is written:
// its queue is empty and each of its hook decisions is accounted for as a
// row written, a duplicate or a drop. An empty queue alone is not enough:
// the batch being inserted has already left it.
func waitQueuesEmpty(t *testing.T, fleet []*fleetInstance) {
	t.Helper()
	written := func(in *fleetInstance) bool {
		one := []*fleetInstance{in}
		if sumMetric(t, one, "hookgate_audit_queue_depth") != 0 {
			return false
		}
		accounted := sumMetric(t, one, "hookgate_audit_records_written_total") +
			sumMetric(t, one, "hookgate_audit_records_duplicate_total") +
			sumMetric(t, one, "hookgate_audit_records_dropped_total")
		return accounted >= sumMetric(t, one, "hookgate_hook_decisions_total")
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		all := true
		for _, in := range fleet {
			all = all && written(in)
		}
		if all {
			return
		}
	}
	t.Fatal("the audit queues were not written within 20 s")
}

// relay forwards loopback TCP connections to a server; cut closes every
// connection and refuses new ones until restore.
type relay struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

func startRelay(t *testing.T, target string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { ln.Close(); r.cut() })
	go r.accept()
	return r
}

func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) accept() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		down := r.down
		if !down {
			r.conns[c] = struct{}{}
		}
		r.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		go r.pipe(c)
	}
}

func (r *relay) pipe(c net.Conn) {
	s, err := net.DialTimeout("tcp", r.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	r.mu.Lock()
	if r.down {
		r.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	r.conns[s] = struct{}{}
	r.mu.Unlock()
	go func() { io.Copy(s, c); s.Close(); c.Close() }()
	io.Copy(c, s)
	c.Close()
	s.Close()
}

func (r *relay) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = true
	for c := range r.conns {
		c.Close()
	}
	clear(r.conns)
}

func (r *relay) restore() {
	r.mu.Lock()
	r.down = false
	r.mu.Unlock()
}
