package proxy_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// cannedUpstream answers every request on loopback with raw, whatever it
// asked, and counts the requests.
func cannedUpstream(t *testing.T, raw string) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				n.Add(1)
				_, _ = io.WriteString(c, raw)
			}()
		}
	}()
	return "http://" + ln.Addr().String(), &n
}

const (
	toolCallJSON = `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"exec","arguments":"{\"command\":\"rm -rf /\"}"}}]},"finish_reason":"tool_calls"}]}`
	toolCallSSE  = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"exec\",\"arguments\":\"{\\\"command\\\":\\\"rm -rf /\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
)

func canned(status, contentType, body string, extra ...string) string {
	h := "HTTP/1.1 " + status + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	for _, e := range extra {
		h += e + "\r\n"
	}
	return h + "\r\n" + body
}

// On a read route an upstream's 1xx or 3xx answer, body or not, becomes a
// 502 in the route's shape, without its Location or its body; 4xx and 5xx
// go back as they are.
func TestReadRoutesRelayNoRedirectOrInterimStatus(t *testing.T) {
	for _, c := range []struct {
		name, raw      string
		status         int
		sameBody       bool
		route, request string
		shape          errorShape
	}{
		{name: "307 with a tool call", raw: canned("307 Temporary Redirect", "application/json", toolCallJSON, "Location: http://127.0.0.1:1/v1/chat/completions"), status: 502},
		{name: "308 with a stream", raw: canned("308 Permanent Redirect", "text/event-stream", toolCallSSE, "Location: /elsewhere"), status: 502},
		{name: "302 without a body", raw: canned("302 Found", "text/plain", "", "Location: http://127.0.0.1:1/"), status: 502},
		{name: "300 with a tool call", raw: canned("300 Multiple Choices", "application/json", toolCallJSON), status: 502},
		{name: "304", raw: "HTTP/1.1 304 Not Modified\r\nLocation: /x\r\n\r\n", status: 502},
		{name: "101", raw: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nLocation: /x\r\n\r\n", status: 502},
		{name: "103 then 307", raw: "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + canned("307 Temporary Redirect", "application/json", toolCallJSON, "Location: /x"), status: 502},
		{name: "307 on messages", raw: canned("307 Temporary Redirect", "application/json", `{}`, "Location: /x"), status: 502, route: "/v1/messages", request: messagesBody, shape: anthropicShape},
		{name: "404 as it is", raw: canned("404 Not Found", "application/json", `{"error":{"message":"no","type":"invalid_request_error","code":"x"}}`, "Location: /x"), status: 404, sameBody: true},
		{name: "500 as it is", raw: canned("500 Internal Server Error", "text/plain", "upstream broke"), status: 500, sameBody: true},
		{name: "429 as it is", raw: canned("429 Too Many Requests", "application/json", `{"error":{"message":"slow down","type":"rate_limit","code":"x"}}`, "Retry-After: 3"), status: 429, sameBody: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			url, hits := cannedUpstream(t, c.raw)
			s := startRouteStack(t, url, denyHook)
			route, request := c.route, c.request
			if route == "" {
				route, request = "/v1/chat/completions", chatBody
			}
			resp, body := rawRequest(t, s.app.URL(), "POST", route, map[string]string{"anthropic-version": "2023-06-01"}, request)
			if hits.Load() != 1 {
				t.Fatalf("the upstream got %d requests", hits.Load())
			}
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if l := resp.Header.Get("Location"); l != "" {
				t.Errorf("Location %q relayed", l)
			}
			if c.sameBody {
				want := c.raw[strings.Index(c.raw, "\r\n\r\n")+4:]
				if string(body) != want {
					t.Errorf("body %q, want it as it came: %q", body, want)
				}
				return
			}
			checkErrorShape(t, c.name, body, c.shape, "upstream_unexpected_status")
			if strings.Contains(string(body), "rm -rf") {
				t.Errorf("the upstream's body reached the client: %s", body)
			}
		})
	}
}
