package e2e

// Hardening, request smuggling: requests whose framing two HTTP
// parsers could read differently are refused, and control characters in
// client header values never reach the upstream. Sent over raw TCP, since
// an HTTP client would not produce them.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

func TestHardeningAmbiguousFramingIsRefused(t *testing.T) {
	s := startStack(t, "")
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"ok":true}`))))
	const head = "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	const smuggled = "GET /v1/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
	cases := map[string]string{
		"CL and TE":                 head + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
		"TE and CL":                 head + "Transfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n0\r\n\r\n" + smuggled,
		"doubled chunked":           head + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n" + smuggled,
		"two TE headers":            head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
		"TE gzip, chunked":          head + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled,
		"TE unknown coding":         head + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n" + smuggled,
		"empty Content-Length":      head + "Content-Length: \r\n\r\n" + smuggled,
		"two Content-Lengths":       head + "Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}" + smuggled,
		"Content-Length list":       head + "Content-Length: 2, 2\r\n\r\n{}" + smuggled,
		"signed Content-Length":     head + "Content-Length: +2\r\n\r\n{}" + smuggled,
		"space before the colon":    head + "Transfer-Encoding : chunked\r\nContent-Length: 2\r\n\r\n{}" + smuggled,
		"negative chunk size":       head + "Transfer-Encoding: chunked\r\n\r\n-2\r\n{}\r\n0\r\n\r\n" + smuggled,
		"chunk size overflow":       head + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff2\r\n{}\r\n0\r\n\r\n" + smuggled,
		"obs-fold Content-Length":   head + "Content-Length:\r\n 2\r\n\r\n{}" + smuggled,
		"NUL in Content-Length":     head + "Content-Length: 2\x00\r\n\r\n{}" + smuggled,
		"LF-only Transfer-Encoding": "POST /v1/embeddings HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\nContent-Length: 5\n\n0\r\n\r\n" + smuggled,
	}
	var wrong, known []string
	for name, raw := range cases {
		before := len(s.mock.Requests())
		resp := hgRaw(t, hgHost(s.app.URL()), []byte(raw), 1500*time.Millisecond)
		got := s.mock.Requests()[before:]
		status := strings.SplitN(resp, "\r\n", 2)[0]
		var paths []string
		for _, r := range got {
			paths = append(paths, r.Method+" "+r.Path)
		}
		t.Logf("%-26s -> %-26q %d answer(s), upstream saw %v", name, status, strings.Count(resp, "HTTP/1.1 "), paths)
		var problem string
		switch {
		case !strings.HasPrefix(status, "HTTP/1.1 400"):
			problem = name + ": answered " + status + ", upstream saw " + strings.Join(paths, ", ")
		case len(got) > 0:
			problem = name + ": forwarded " + strings.Join(paths, ", ")
		case strings.Count(resp, "HTTP/1.1 ") > 1:
			problem = name + ": a second (smuggled) request was answered"
		}
		if problem != "" {
			if knownFramingBugs[name] {
				known = append(known, problem)
			} else {
				wrong = append(wrong, problem)
			}
		}
	}
	if len(wrong) > 0 {
		t.Errorf("ambiguous framing was not refused:\n  %s", strings.Join(wrong, "\n  "))
	}
	if len(known) > 0 {
		t.Errorf("ambiguous framing was not refused (fixed cases regressed):\n  %s", strings.Join(known, "\n  "))
	}
}

// knownFramingBugs are the cases reported in RELIABILITY.md; each must go
// once fixed (the test then fails on them if they regress).
var knownFramingBugs = map[string]bool{
	"CL and TE": true, "TE and CL": true, "LF-only Transfer-Encoding": true, "obs-fold Content-Length": true,
}

// Control characters in header values: a value the proxy accepts must
// reach the upstream without CR, LF or NUL (fasthttp's raw header API
// accepts them, fasthttp #875 and #1794).
func TestHardeningControlCharactersInHeadersNeverReachTheUpstream(t *testing.T) {
	s := startStack(t, "")
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"ok":true}`))))
	const head = "POST /v1/embeddings HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
	cases := map[string]string{
		"NUL":                   head + "X-Evil: a\x00b\r\n\r\n{}",
		"bare CR":               head + "X-Evil: a\rX-Injected: 1\r\n\r\n{}",
		"obs-fold":              head + "X-Evil: a\r\n X-Injected: 1\r\n\r\n{}",
		"obs-fold with tab":     head + "X-Evil: a\r\n\tb\r\n\r\n{}",
		"DEL and C1":            head + "X-Evil: a\x7f\u0085b\r\n\r\n{}",
		"NUL in a name":         head + "X-E\x00vil: a\r\n\r\n{}",
		"upstream header NUL":   head + "X-Hookgate-Upstream: mock\x00\r\n\r\n{}",
		"CR in the request URI": "POST /v1/embeddings\rX-Injected: 1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}",
	}
	var wrong []string
	for name, raw := range cases {
		before := len(s.mock.Requests())
		resp := hgRaw(t, hgHost(s.app.URL()), []byte(raw), 3*time.Second)
		status := strings.SplitN(resp, "\r\n", 2)[0]
		got := s.mock.Requests()[before:]
		t.Logf("%-22s -> %-28q forwarded %d", name, status, len(got))
		for _, r := range got {
			for k, vs := range r.Header {
				for _, v := range append([]string{k}, vs...) {
					if strings.ContainsAny(v, "\r\n\x00") {
						wrong = append(wrong, name+": the upstream received "+k+": "+v)
					}
				}
				if strings.EqualFold(k, "X-Injected") {
					wrong = append(wrong, name+": a header was injected upstream")
				}
			}
			if strings.ContainsAny(r.URI, "\r\n\x00") {
				wrong = append(wrong, name+": the upstream received URI "+r.URI)
			}
		}
	}
	if len(wrong) > 0 {
		t.Errorf("control characters reached the upstream:\n  %s", strings.Join(wrong, "\n  "))
	}
}

// Variants of the routes hookgate reads and of their method: each is
// either read by its interceptor (here: a prompt hook refuses every request,
// so nothing reaches the upstream) or refused; one that reaches the
// upstream unread escapes the policy whenever the upstream is lenient
// about it.
func TestHardeningRouteVariantsAreReadOrRefused(t *testing.T) {
	s := startStack(t, `hooks:
  - id: no-prompts
    event: user_prompt_submit
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "block", reason: "closed" }; }
`)
	s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, []byte(`{"ok":true}`))))
	bodies := map[string]string{
		"chat":      `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		"responses": `{"model":"m","input":"hi"}`,
		"messages":  `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`,
	}
	req := func(family, method, target string) string {
		body := bodies[family]
		return method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nanthropic-version: 2023-06-01\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n" + body
	}
	cases := map[string]string{
		"control":                req("chat", "POST", "/v1/chat/completions"),
		"doubled slashes":        req("chat", "POST", "//v1//chat/completions/"),
		"dot segments":           req("chat", "POST", "/v1/./x/../chat/completions"),
		"percent-encoded":        req("chat", "POST", "/v1/chat/%63ompletions"),
		"encoded slash":          req("chat", "POST", "/v1/chat%2Fcompletions"),
		"query":                  req("chat", "POST", "/v1/chat/completions?x=1"),
		"absolute-form":          req("chat", "POST", "http://x/v1/chat/completions"),
		"HTTP/1.0":               strings.Replace(req("chat", "POST", "/v1/chat/completions"), "HTTP/1.1", "HTTP/1.0", 1),
		"lower-case method":      req("chat", "post", "/v1/chat/completions"),
		"mixed-case method":      req("chat", "Post", "/v1/chat/completions"),
		"upper-case path":        req("chat", "POST", "/V1/CHAT/COMPLETIONS"),
		"matrix parameter":       req("chat", "POST", "/v1/chat/completions;x=1"),
		"trailing dot":           req("chat", "POST", "/v1/chat/completions."),
		"encoded NUL":            req("chat", "POST", "/v1/chat/completions%00"),
		"PUT":                    req("chat", "PUT", "/v1/chat/completions"),
		"responses, control":     req("responses", "POST", "/v1/responses"),
		"responses, upper-case":  req("responses", "POST", "/V1/RESPONSES"),
		"responses, dot segment": req("responses", "POST", "/v1/x/../responses"),
		"messages, control":      req("messages", "POST", "/v1/messages"),
		"messages, upper-case":   req("messages", "POST", "/V1/Messages"),
	}
	var escaped []string
	for name, raw := range cases {
		before := len(s.mock.Requests())
		resp := hgRaw(t, hgHost(s.app.URL()), []byte(raw), 2*time.Second)
		got := s.mock.Requests()[before:]
		status := strings.SplitN(resp, "\r\n", 2)[0]
		if len(got) > 0 {
			escaped = append(escaped, fmt.Sprintf("%s: %s %s reached the upstream unread", name, got[0].Method, got[0].URI))
		}
		t.Logf("%-24s -> %-28q upstream requests %d", name, status, len(got))
	}
	var unexpected []string
	for _, e := range escaped {
		name := strings.SplitN(e, ":", 2)[0]
		if !knownRouteEscapes[name] {
			unexpected = append(unexpected, e)
		}
	}
	if len(unexpected) > 0 {
		t.Errorf("route variants escaped interception:\n  %s", strings.Join(unexpected, "\n  "))
	}
	if len(escaped) > 0 {
		t.Errorf("route variants reached the upstream without hooks:\n  %s", strings.Join(escaped, "\n  "))
	}
}

// knownRouteEscapes are variants known to reach the upstream unread: none.
// With a hook configured the proxy forwards only an exact POST to a read
// route, a listed route or passthrough_routes (proxy/routes.go).
var knownRouteEscapes = map[string]bool{}
