package proxy

import (
	"bufio"
	"bytes"
	"net/http"
	"path"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/providers"
)

// upstreamMarkers are parts of a path, in lower case, that name a
// generation route to some upstream: a forwarded request that does not
// read as a read route must hold none of them (count_tokens aside).
var upstreamMarkers = []string{"/chat/completions", "/responses", "/messages", "/completions", "/complete",
	":generatecontent", ":streamgeneratecontent", "/deployments/", "/conversations", "/batches", "/threads", "/assistants", "/realtime", "/content"}

// FuzzRouteDecision sends any method and request target through the
// router of a proxy with hooks configured, and the request it would send
// upstream through Go's own HTTP parser (the upstream's reading). The
// property: each request is either read (a POST the upstream reads as a
// read route), forwarded as a listed route the upstream reads as that
// route and method, or refused; never forwarded unread as anything else,
// and never with a request line that carries more than the path.
func FuzzRouteDecision(f *testing.F) {
	for _, seed := range [][2]string{
		{"POST", "/v1/chat/completions"}, {"POST", "//v1//chat/completions/"}, {"POST", "/v1/./x/../chat/completions"},
		{"POST", "/v1/chat%2Fcompletions"}, {"POST", "/v1/chat/%2563ompletions"}, {"POST", `/v1\chat\completions`},
		{"POST", "/v1/chat/completions;x=1"}, {"POST", "/v1/chat/completions%00"}, {"POST", "/v1/chat/completions."},
		{"post", "/v1/chat/completions"}, {"GET", "/v1/chat/completions"}, {"OPTIONS", "/v1/messages"},
		{"GET", "/v1/models"}, {"GET", "/v1/models/ft:gpt-4o:org::x"}, {"GET", "/v1/models/gemini:generateContent"},
		{"GET", "/v1/models%2F..%2Fchat%2Fcompletions"}, {"GET", "/v1/models/%2e%2e%5cchat%5ccompletions"},
		{"POST", "/v1/embeddings%3Fx=1"}, {"GET", "/v1/models%0D%0AX-Injected:%201"}, {"GET", "/v1/files/f/content"},
		{"POST", "/v1beta/models/g:streamGenerateContent?alt=sse"}, {"POST", "/openai/deployments/d/chat/completions?api-version=1"},
		{"POST", "/api/v1/chat/completions"}, {"GET", "/v1/responses/resp_1"}, {"POST", "/V1/Messages"},
		{"POST", "http://x/v1/chat/completions"}, {"DELETE", "/v1/files/file-1"}, {"POST", "/v1/messages/count_tokens"},
	} {
		f.Add(seed[0], seed[1])
	}
	r := &router{formats: providers.NewFormatTable(providers.Formats()), hooksActive: true}
	up := &upstream{name: "u", provider: "openai", scheme: "http", host: "upstream.test"}
	f.Fuzz(func(t *testing.T, method, target string) {
		var in fasthttp.Request
		raw := method + " " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
		if err := in.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
			return // fasthttp's server answers 400; nothing goes upstream
		}
		m := string(in.Header.Method())
		d := r.decide(m, in.URI().Path(), &in.Header)
		if d.kind == routeRefused {
			if s := d.status(); s != 403 && s != 405 {
				t.Fatalf("%q %q refused with status %d", method, target, s)
			}
			return
		}
		var out fasthttp.Request
		up.prepare(&out, &in, d.upPath, []byte("{}"), d.kind == routeIntercepted, "")
		var wire bytes.Buffer
		w := bufio.NewWriter(&wire)
		if err := out.Write(w); err != nil {
			t.Fatalf("%q %q: writing the upstream request: %v", method, target, err)
		}
		_ = w.Flush()
		seen, err := http.ReadRequest(bufio.NewReader(&wire))
		if err != nil {
			t.Fatalf("%q %q: the upstream cannot parse what it is sent (%v):\n%q", method, target, err, wire.String())
		}
		for k := range seen.Header {
			if k != "Content-Length" && k != "Accept-Encoding" && k != "Content-Type" {
				t.Fatalf("%q %q: the upstream reads a header %q:\n%q", method, target, k, wire.String())
			}
		}
		p := seen.URL.Path
		lenient := strings.ToLower(path.Clean(strings.ReplaceAll(p, `\`, "/")))
		switch d.kind {
		case routeIntercepted:
			if seen.Method != "POST" || providers.Registered().Match(p, seen.URL.RawQuery) == nil {
				t.Fatalf("%q %q read, but the upstream is sent %s %q", method, target, seen.Method, p)
			}
		case routePassthrough:
			l, ok := matchListed(p)
			if !ok || !l.takes(seen.Method) || p != lenient && strings.TrimSuffix(lenient, "/") != strings.ToLower(p) {
				t.Fatalf("%q %q forwarded unread; the upstream is sent %s %q", method, target, seen.Method, p)
			}
			if lenient == "/v1/messages/count_tokens" {
				return
			}
			for _, mk := range upstreamMarkers {
				if strings.Contains(lenient, mk) {
					t.Fatalf("%q %q forwarded unread; a lenient upstream reads %q", method, target, lenient)
				}
			}
		}
	})
}
