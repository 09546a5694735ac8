package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

func startHop(t *testing.T, upstream string) string {
	t.Helper()
	base, stop, err := StartBareHop(upstream, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return base
}

// The hop relays a recorded stream written one byte per write byte for
// byte, passes the request through unchanged, and keeps error statuses and
// their headers.
func TestBareHopIsTransparent(t *testing.T) {
	mock := mockupstream.Start(t)
	hop := startHop(t, mock.URL())

	fx := mockupstream.MustFixture(t, "openai/chat-gpt4o-parallel-tools-small.sse", mockupstream.Chunking{Mode: mockupstream.FixedSize, Size: 1})
	mock.Enqueue(fx, mockupstream.RateLimited(3))

	req, _ := http.NewRequest(http.MethodPost, hop+"/v1/chat/completions?x=1", bytes.NewReader(ChatRequest(true)))
	req.Header.Set("Authorization", "Bearer sk-test")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, fx.Body) {
		t.Fatalf("relayed %d bytes (%v), want %d identical", len(got), err, len(fx.Body))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	rec := mock.Requests()[0]
	if rec.URI != "/v1/chat/completions?x=1" || rec.Header.Get("Authorization") != "Bearer sk-test" || !bytes.Equal(rec.Body, ChatRequest(true)) {
		t.Fatalf("upstream saw %s %v (%d bytes)", rec.URI, rec.Header, len(rec.Body))
	}

	resp, err = http.Post(hop+"/v1/chat/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("got %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// An upstream that dies mid-stream reaches the client as a broken body,
// not as a clean end.
func TestBareHopPassesTruncation(t *testing.T) {
	mock := mockupstream.Start(t)
	hop := startHop(t, mock.URL())
	body := mockupstream.StreamSpec{TextDeltas: 4}.SSE()
	r := mockupstream.Stream(body, mockupstream.Chunking{Mode: mockupstream.PerEvent})
	r.Fault, r.FaultAt = mockupstream.Cut, len(body)/2
	mock.Enqueue(r)
	resp, err := http.Post(hop+"/v1/chat/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, io.ErrUnexpectedEOF) || !bytes.Equal(got, body[:len(body)/2]) {
		t.Fatalf("got %d bytes, %v; want %d then an unexpected EOF", len(got), err, len(body)/2)
	}
}

// findContent and findKey find a match whatever the read boundaries: the
// buffer is grown one byte at a time and the match must be reported at the
// byte that completes it.
func TestFindContentAcrossReads(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int // length of the buffer at which content is found; -1 never
	}{
		{"role chunk then content", `{"delta":{"role":"assistant","content":""}}` + "\n\n" + `{"delta":{"content":"Hi"}}`, 67},
		{"null content", `{"content":null}{"content": "x"}`, 30},
		{"spaces", `{"content" :  "x"}`, 16},
		{"reasoning_content does not count", `{"reasoning_content":"think"}`, -1},
		{"empty only", `{"content":""}`, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, at := 0, -1
			for n := 1; n <= len(tt.in); n++ {
				var found bool
				found, from = findContent([]byte(tt.in[:n]), from)
				if found {
					at = n
					break
				}
			}
			if at != tt.want {
				t.Fatalf("found at %d, want %d", at, tt.want)
			}
		})
	}
	in := `{"delta":{"tool_calls":[`
	from := 0
	for n := 1; n <= len(in); n++ {
		found, f := findKey([]byte(in[:n]), from, keyToolCalls)
		from = f
		if found != (n >= len(`{"delta":{"tool_calls"`)) {
			t.Fatalf("at %d bytes found=%v", n, found)
		}
		if found {
			break
		}
	}
}

func TestPercentile(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{50: 5, 90: 9, 99: 10, 100: 10, 1: 1} {
		if got := percentile(v, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("empty")
	}
}

// A small run end to end: both loads, every built-in scenario, no errors,
// added figures present, and the table, JSON and SVG written.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loopback load for a few seconds")
	}
	scs, err := Scenarios([]string{"plain", "stream", "fixture-vercel-text-tools"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	extra := URLTarget("second-hop", "") // replaced below by a real hop
	extra.Start = func(up string, sc *Scenario) (string, func(), error) { return StartBareHop(up, sc) }
	extra.Name = "hop-2"
	rep, err := Run(context.Background(), Config{
		Scenarios: scs,
		Targets:   []Target{Direct(), BareHop(), extra},
		Loads:     []Load{{Concurrency: 1}, {Rate: 300}},
		Requests:  60,
		Duration:  5 * time.Second,
		Warmup:    3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Phases) != 6 {
		t.Fatalf("%d phases, want 6", len(rep.Phases))
	}
	for _, p := range rep.Phases {
		if p.Rounds != 60 {
			t.Errorf("%s %s: %d rounds", p.Scenario, p.Load, p.Rounds)
		}
		for _, tr := range p.Targets {
			if tr.Errors > 0 || tr.Requests != 60 {
				t.Errorf("%s %s %s: %d/%d errors %v", p.Scenario, p.Load, tr.Name, tr.Errors, tr.Requests, tr.ErrorSamples)
			}
			if tr.Latency.N != 60 || tr.TTFB.P50 <= 0 || tr.TTFB.P50 > tr.Latency.P99 {
				t.Errorf("%s %s %s: latency %+v ttfb %+v", p.Scenario, p.Load, tr.Name, tr.Latency, tr.TTFB)
			}
			if p.Streamed && tr.TTFC.N != 60 {
				t.Errorf("%s %s %s: ttfc %+v", p.Scenario, p.Load, tr.Name, tr.TTFC)
			}
		}
		if p.Targets[0].AddedLatency != nil || p.Targets[1].AddedLatency == nil || p.Targets[2].AddedTTFB.Pairs != 60 {
			t.Errorf("%s %s: added figures misplaced", p.Scenario, p.Load)
		}
	}

	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"share its", "== plain · concurrency 1", "== stream · rate 300/s per target", "hop-2", "ttfc p50"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	jp, sp, err := rep.WriteFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if b, err := os.ReadFile(jp); err != nil || json.Unmarshal(b, &back) != nil || len(back.Phases) != 6 {
		t.Fatalf("JSON does not read back: %v", err)
	}
	svg, _ := os.ReadFile(sp)
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
}

func TestScenariosAndTargets(t *testing.T) {
	if _, err := Scenarios([]string{"nope"}, Options{}); err == nil {
		t.Error("unknown scenario accepted")
	}
	all, err := Scenarios([]string{"all", "plain"}, Options{})
	responses := ResponsesHookScenarios(Options{})
	if len(responses) != len(responsesHookKinds) {
		t.Fatalf("%d Responses hook scenarios, want %d", len(responses), len(responsesHookKinds))
	}
	if err != nil || len(all) != 2+len(FixtureStreams)+len(HookScenarios(Options{}))+len(responses) {
		t.Fatalf("all: %d scenarios, %v", len(all), err)
	}
	for _, sc := range responses {
		one, err := Scenarios([]string{sc.Name}, Options{})
		if err != nil || len(one) != 1 || one[0].Path != "/v1/responses" {
			t.Errorf("%s alone: %v, %v", sc.Name, one, err)
		}
	}
	for _, sc := range all {
		if !json.Valid(sc.Body) {
			t.Errorf("%s: request body is not JSON", sc.Name)
		}
	}
	tg, err := ParseTarget("peer=http://127.0.0.1:9000/")
	if err != nil || tg.Name != "peer" || !tg.Loose {
		t.Fatalf("ParseTarget: %+v %v", tg, err)
	}
	if base, _, _ := tg.Start("", nil); base != "http://127.0.0.1:9000" {
		t.Fatalf("base %q", base)
	}
	if _, err := ParseTarget("ftp://x"); err == nil {
		t.Error("bad target accepted")
	}
}

func TestCommandMain(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	cmd := Command{Name: "hgbench", Stdout: &out, Stderr: &errOut, Scenarios: []Scenario{{
		Name: "models", Method: http.MethodGet, Path: "/v1/models",
		Response: mockupstream.JSON(http.StatusOK, []byte(`{"object":"list","data":[]}`)),
	}}}
	err := cmd.Main(context.Background(), []string{"-scenarios", "plain", "-requests", "10", "-warmup", "2", "-rates", "200", "-out", dir})
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, want := range []string{"== plain · concurrency 1", "== models · rate 200/s per target", "results: "} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-hgbench.json"))
	if len(files) != 1 {
		t.Fatalf("results %v", files)
	}
	out.Reset()
	if err := cmd.Main(context.Background(), []string{"-from", files[0]}); err != nil || !strings.Contains(out.String(), "== models") {
		t.Fatalf("-from: %v\n%s", err, out.String())
	}
	if err := cmd.Main(context.Background(), []string{"-rates", "x"}); err == nil {
		t.Fatal("bad rate accepted")
	}
}
