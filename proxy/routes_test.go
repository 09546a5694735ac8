package proxy_test

import (
	"net/http"
	"strings"
	"testing"
)

const (
	chatBody      = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	responsesBody = `{"model":"m","input":"hi"}`
	messagesBody  = `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
)

// routeCase is one request and what a closed proxy must do with it.
type routeCase struct {
	method, target string
	header         map[string]string
	body           string
	// upstream is the request URI the upstream must see; "" means the
	// request must never reach it.
	upstream string
	// status and code are hookgate's own answer to a refused request.
	status int
	code   string
	shape  errorShape
	allow  string
}

// closedProxyCases are every route and method variant the allow-list
// decides on, with a deny hook configured.
var closedProxyCases = map[string]routeCase{
	// Read routes: a POST to the exact path, and the variants fasthttp
	// normalises into it; the upstream is sent the path that was read.
	"read chat":                 {method: "POST", target: "/v1/chat/completions", body: chatBody, upstream: "/v1/chat/completions"},
	"read responses":            {method: "POST", target: "/v1/responses", body: responsesBody, upstream: "/v1/responses"},
	"read messages":             {method: "POST", target: "/v1/messages", body: messagesBody, header: map[string]string{"anthropic-version": "2023-06-01"}, upstream: "/v1/messages"},
	"read chat, query kept":     {method: "POST", target: "/v1/chat/completions?x=1", body: chatBody, upstream: "/v1/chat/completions?x=1"},
	"read chat, doubled slash":  {method: "POST", target: "//v1//chat/completions/", body: chatBody, upstream: "/v1/chat/completions"},
	"read chat, dot segments":   {method: "POST", target: "/v1/./x/../chat/completions", body: chatBody, upstream: "/v1/chat/completions"},
	"read chat, encoded letter": {method: "POST", target: "/v1/chat/%63ompletions", body: chatBody, upstream: "/v1/chat/completions"},
	"read chat, encoded slash":  {method: "POST", target: "/v1/chat%2Fcompletions", body: chatBody, upstream: "/v1/chat/completions"},
	"read chat, encoded dots":   {method: "POST", target: "/v1/models/%2e%2e/chat/completions", body: chatBody, upstream: "/v1/chat/completions"},
	"read chat, absolute-form":  {method: "POST", target: "http://x/v1/chat/completions", body: chatBody, upstream: "/v1/chat/completions"},

	// Listed non-generation routes, with their methods.
	"models":                    {method: "GET", target: "/v1/models?limit=2", upstream: "/v1/models?limit=2"},
	"models, HEAD":              {method: "HEAD", target: "/v1/models", upstream: "/v1/models"},
	"model":                     {method: "GET", target: "/v1/models/gpt-4o", upstream: "/v1/models/gpt-4o"},
	"fine-tuned model":          {method: "GET", target: "/v1/models/ft:gpt-4o-mini:org::abc123", upstream: "/v1/models/ft:gpt-4o-mini:org::abc123"},
	"fine-tuned model, encoded": {method: "GET", target: "/v1/models/ft%3Agpt-4o-mini%3Aorg%3A%3Aabc123", upstream: "/v1/models/ft:gpt-4o-mini:org::abc123"},
	"embeddings":                {method: "POST", target: "/v1/embeddings", body: `{"input":"x"}`, upstream: "/v1/embeddings"},
	"embeddings, trailing /":    {method: "POST", target: "/v1/embeddings/", body: `{"input":"x"}`, upstream: "/v1/embeddings"},
	"moderations":               {method: "POST", target: "/v1/moderations", body: `{"input":"x"}`, upstream: "/v1/moderations"},
	"count_tokens":              {method: "POST", target: "/v1/messages/count_tokens", body: messagesBody, upstream: "/v1/messages/count_tokens"},
	"transcriptions":            {method: "POST", target: "/v1/audio/transcriptions", body: `{}`, upstream: "/v1/audio/transcriptions"},
	"translations":              {method: "POST", target: "/v1/audio/translations", body: `{}`, upstream: "/v1/audio/translations"},
	"files list":                {method: "GET", target: "/v1/files", upstream: "/v1/files"},
	"file upload":               {method: "POST", target: "/v1/files", body: `{}`, upstream: "/v1/files"},
	"file metadata":             {method: "GET", target: "/v1/files/file-abc", upstream: "/v1/files/file-abc"},
	"file delete":               {method: "DELETE", target: "/v1/files/file-abc", upstream: "/v1/files/file-abc"},

	// Read routes take POST only, spelled exactly.
	"chat GET":                  {method: "GET", target: "/v1/chat/completions", status: 405, code: "method_not_allowed", allow: "POST"},
	"chat GET with a body":      {method: "GET", target: "/v1/chat/completions", body: chatBody, status: 405, code: "method_not_allowed", allow: "POST"},
	"chat OPTIONS with a body":  {method: "OPTIONS", target: "/v1/chat/completions", body: chatBody, status: 405, code: "method_not_allowed", allow: "POST"},
	"chat HEAD":                 {method: "HEAD", target: "/v1/chat/completions", status: 405, allow: "POST"},
	"chat PUT":                  {method: "PUT", target: "/v1/chat/completions", body: chatBody, status: 405, code: "method_not_allowed", allow: "POST"},
	"chat PATCH":                {method: "PATCH", target: "/v1/chat/completions", body: chatBody, status: 405, code: "method_not_allowed", allow: "POST"},
	"chat DELETE":               {method: "DELETE", target: "/v1/chat/completions", status: 405, code: "method_not_allowed", allow: "POST"},
	"chat lower-case post":      {method: "post", target: "/v1/chat/completions", body: chatBody, status: 405, code: "method_not_allowed", allow: "POST"},
	"chat mixed-case Post":      {method: "Post", target: "/v1/chat/completions", body: chatBody, status: 405, code: "method_not_allowed", allow: "POST"},
	"chat GET, encoded dots":    {method: "GET", target: "/v1/models%2F..%2Fchat%2Fcompletions", status: 405, code: "method_not_allowed", allow: "POST"},
	"responses GET":             {method: "GET", target: "/v1/responses", status: 405, code: "method_not_allowed", allow: "POST"},
	"messages GET":              {method: "GET", target: "/v1/messages", body: messagesBody, status: 405, code: "method_not_allowed", shape: anthropicShape, allow: "POST"},
	"messages OPTIONS":          {method: "OPTIONS", target: "/v1/messages", body: messagesBody, status: 405, code: "method_not_allowed", shape: anthropicShape, allow: "POST"},
	"models POST":               {method: "POST", target: "/v1/models", body: chatBody, status: 405, code: "method_not_allowed", allow: "GET, HEAD"},
	"embeddings PUT":            {method: "PUT", target: "/v1/embeddings", body: `{}`, status: 405, code: "method_not_allowed", allow: "POST"},
	"count_tokens GET":          {method: "GET", target: "/v1/messages/count_tokens", status: 405, code: "method_not_allowed", shape: anthropicShape, allow: "POST"},
	"method override on models": {method: "GET", target: "/v1/models", header: map[string]string{"X-HTTP-Method-Override": "POST"}, status: 403, code: "route_not_guarded"},

	// Stored objects can show a call hookgate blocked.
	"stored chat completion":      {method: "GET", target: "/v1/chat/completions/chatcmpl-1", status: 403, code: "route_not_guarded"},
	"stored chat messages":        {method: "GET", target: "/v1/chat/completions/chatcmpl-1/messages", status: 403, code: "route_not_guarded"},
	"stored response":             {method: "GET", target: "/v1/responses/resp_1", status: 403, code: "route_not_guarded"},
	"stored response input items": {method: "GET", target: "/v1/responses/resp_1/input_items", status: 403, code: "route_not_guarded"},
	"response cancel":             {method: "POST", target: "/v1/responses/resp_1/cancel", body: `{}`, status: 403, code: "route_not_guarded"},
	"conversation":                {method: "GET", target: "/v1/conversations/conv_1", status: 403, code: "route_not_guarded"},
	"conversation items":          {method: "GET", target: "/v1/conversations/conv_1/items", status: 403, code: "route_not_guarded"},
	"conversation create":         {method: "POST", target: "/v1/conversations", body: `{}`, status: 403, code: "route_not_guarded"},
	"file content":                {method: "GET", target: "/v1/files/file-abc/content", status: 403, code: "route_not_guarded"},
	"anthropic file content":      {method: "GET", target: "/v1/files/file-abc/content", header: map[string]string{"anthropic-version": "2023-06-01"}, status: 403, code: "route_not_guarded", shape: anthropicShape},

	// Formats hookgate does not read yet.
	"gemini stream":                    {method: "POST", target: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", body: `{}`, upstream: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
	"gemini generate":                  {method: "POST", target: "/v1beta/models/gemini-2.5-pro:generateContent", body: `{}`, upstream: "/v1beta/models/gemini-2.5-pro:generateContent"},
	"gemini v1 generate":               {method: "POST", target: "/v1/models/gemini-2.5-pro:generateContent", body: `{}`, upstream: "/v1/models/gemini-2.5-pro:generateContent"},
	"gemini stream, another alt":       {method: "POST", target: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=proto", body: `{}`, status: 403, code: "route_not_guarded", shape: geminiShape},
	"gemini v1 generate, GET":          {method: "GET", target: "/v1/models/gemini-2.5-pro:generateContent", status: 405, code: "method_not_allowed", shape: geminiShape, allow: "POST"},
	"gemini v1 stream, GET, encoded":   {method: "GET", target: "/v1/models/gemini-2.5-pro%3AstreamGenerateContent", status: 405, code: "method_not_allowed", shape: geminiShape, allow: "POST"},
	"azure deployment":                 {method: "POST", target: "/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21", body: chatBody, status: 403, code: "route_not_guarded"},
	"prefixed base /api/v1":            {method: "POST", target: "/api/v1/chat/completions", body: chatBody, status: 403, code: "route_not_guarded"},
	"prefixed base /openai/v1":         {method: "POST", target: "/openai/v1/chat/completions", body: chatBody, status: 403, code: "route_not_guarded"},
	"legacy completions":               {method: "POST", target: "/v1/completions", body: `{}`, status: 403, code: "route_not_guarded"},
	"anthropic legacy complete":        {method: "POST", target: "/v1/complete", body: `{}`, status: 403, code: "route_not_guarded", shape: anthropicShape},
	"message batches":                  {method: "POST", target: "/v1/messages/batches", body: `{}`, status: 403, code: "route_not_guarded", shape: anthropicShape},
	"message batch results":            {method: "GET", target: "/v1/messages/batches/b_1/results", status: 403, code: "route_not_guarded", shape: anthropicShape},
	"batches":                          {method: "POST", target: "/v1/batches", body: `{}`, status: 403, code: "route_not_guarded"},
	"assistants":                       {method: "POST", target: "/v1/assistants", body: `{}`, status: 403, code: "route_not_guarded"},
	"thread runs":                      {method: "POST", target: "/v1/threads/runs", body: `{}`, status: 403, code: "route_not_guarded"},
	"realtime":                         {method: "GET", target: "/v1/realtime?model=m", status: 403, code: "route_not_guarded"},
	"images":                           {method: "POST", target: "/v1/images/generations", body: `{}`, status: 403, code: "route_not_guarded"},
	"root":                             {method: "GET", target: "/", status: 403, code: "route_not_guarded"},
	"model with a slash":               {method: "GET", target: "/v1/models/org%2Fmodel", status: 403, code: "route_not_guarded"},
	"model ending in a dot":            {method: "GET", target: "/v1/models/gpt-4o.", status: 403, code: "route_not_guarded"},
	"models under a read route prefix": {method: "GET", target: "/v1/chat/completions/models", status: 403, code: "route_not_guarded"},

	// Path oddities are refused, never forwarded unread.
	"backslashes":               {method: "POST", target: `/v1\chat\completions`, body: chatBody, status: 403, code: "route_not_guarded"},
	"encoded backslash":         {method: "POST", target: "/v1/chat%5Ccompletions", body: chatBody, status: 403, code: "route_not_guarded"},
	"matrix parameter":          {method: "POST", target: "/v1/chat/completions;x=1", body: chatBody, status: 403, code: "route_not_guarded"},
	"encoded semicolon":         {method: "POST", target: "/v1/chat/completions%3Bx=1", body: chatBody, status: 403, code: "route_not_guarded"},
	"encoded NUL":               {method: "POST", target: "/v1/chat/completions%00", body: chatBody, status: 403, code: "route_not_guarded"},
	"trailing dot":              {method: "POST", target: "/v1/chat/completions.", body: chatBody, status: 403, code: "route_not_guarded"},
	"encoded question mark":     {method: "POST", target: "/v1/embeddings%3Fx=1", body: `{}`, status: 403, code: "route_not_guarded"},
	"encoded hash":              {method: "POST", target: "/v1/chat/completions%23x", body: chatBody, status: 403, code: "route_not_guarded"},
	"double encoding":           {method: "POST", target: "/v1/chat/%2563ompletions", body: chatBody, status: 403, code: "route_not_guarded"},
	"encoded space":             {method: "POST", target: "/v1/chat/completions%20", body: chatBody, status: 403, code: "route_not_guarded"},
	"encoded CRLF":              {method: "GET", target: "/v1/models%0D%0AX-Injected:%201", status: 403, code: "route_not_guarded"},
	"zero-width space":          {method: "POST", target: "/v1/chat/completions%E2%80%8B", body: chatBody, status: 403, code: "route_not_guarded"},
	"upper-case path":           {method: "POST", target: "/V1/CHAT/COMPLETIONS", body: chatBody, status: 403, code: "route_not_guarded"},
	"upper-case responses":      {method: "POST", target: "/V1/RESPONSES", body: responsesBody, status: 403, code: "route_not_guarded"},
	"upper-case messages":       {method: "POST", target: "/V1/Messages", body: messagesBody, status: 403, code: "route_not_guarded", shape: anthropicShape},
	"upper-case listed route":   {method: "GET", target: "/V1/Models", status: 403, code: "route_not_guarded"},
	"backslash under a listing": {method: "GET", target: `/v1/models/..\chat\completions`, status: 403, code: "route_not_guarded"},
}

// With a hook configured, each request is read, forwarded as a listed
// route, or refused in its route's error shape; a refused one never
// reaches the upstream, and a forwarded one reaches it under the path that
// was decided on.
func TestClosedProxyReadsListsOrRefusesEveryRoute(t *testing.T) {
	mock := echoUpstream(t)
	s := startRouteStack(t, mock.URL(), denyHook)
	for name, c := range closedProxyCases {
		before := len(mock.Requests())
		resp, body := rawRequest(t, s.app.URL(), c.method, c.target, c.header, c.body)
		got := mock.Requests()[before:]
		what := name + " (" + c.method + " " + c.target + ")"
		t.Logf("%-40s -> %d, upstream %v", what, resp.StatusCode, uris(got))
		if c.upstream != "" {
			if len(got) != 1 || got[0].URI != c.upstream || got[0].Method != c.method {
				t.Errorf("%s: the upstream got %d requests %v, want one %s %s", what, len(got), uris(got), c.method, c.upstream)
			}
			if resp.StatusCode == 403 || resp.StatusCode == 405 {
				t.Errorf("%s: refused with %d: %s", what, resp.StatusCode, body)
			}
			continue
		}
		if len(got) != 0 {
			t.Errorf("%s: reached the upstream as %v", what, uris(got))
		}
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d: %s", what, resp.StatusCode, c.status, body)
		}
		if a := resp.Header.Get("Allow"); a != c.allow {
			t.Errorf("%s: Allow %q, want %q", what, a, c.allow)
		}
		if c.method != "HEAD" {
			checkErrorShape(t, what, body, c.shape, c.code)
		}
		if q := strings.IndexByte(c.target, '?'); q >= 0 && strings.Contains(string(body), c.target[q:]) {
			t.Errorf("%s: the answer names the query: %s", what, body)
		}
	}
}

func uris(rs []*mockRequest) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Method+" "+r.URI)
	}
	return out
}

// Without hooks hookgate is a plain reverse proxy: every route goes
// upstream, and the read routes are read.
func TestOpenProxyForwardsEveryRoute(t *testing.T) {
	mock := echoUpstream(t)
	s := startRouteStack(t, mock.URL(), "")
	for _, c := range []struct{ method, target, upstream string }{
		{"GET", "/v1/chat/completions/chatcmpl-1", "/v1/chat/completions/chatcmpl-1"},
		{"POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{"POST", "/openai/deployments/d/chat/completions?api-version=1", "/openai/deployments/d/chat/completions?api-version=1"},
		{"POST", "/v1/completions", "/v1/completions"},
		{"GET", "/v1/chat/completions", "/v1/chat/completions"},
		{"POST", "/v1/chat/completions", "/v1/chat/completions"},
		{"GET", "/v1/files/file-1/content", "/v1/files/file-1/content"},
		// A decoded byte that would end the path or the request line is
		// escaped again, never written raw onto the upstream connection.
		{"GET", "/v1/models%0D%0AX-Injected:%201", "/v1/models%0D%0AX-Injected:%201"},
		{"GET", "/v1/models%20HTTP/1.1%0D%0AX-Injected:%201%0D%0A%0D%0AGET%20/x", "/v1/models%20HTTP/1.1%0D%0AX-Injected:%201%0D%0A%0D%0AGET%20/x"},
		{"POST", "/v1/embeddings%3Fa=b", "/v1/embeddings%3Fa=b"},
		{"GET", "/v1/x%00y%23z%25", "/v1/x%00y%23z%25"},
	} {
		before := len(mock.Requests())
		resp, body := rawRequest(t, s.app.URL(), c.method, c.target, nil, chatBody)
		got := mock.Requests()[before:]
		if resp.StatusCode != http.StatusOK || len(got) != 1 || got[0].URI != c.upstream || got[0].Header.Get("X-Injected") != "" {
			t.Errorf("%s %s: %d %s, upstream got %v", c.method, c.target, resp.StatusCode, body, uris(got))
		}
	}
}
