package proxy

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Headers over the read buffer get a 431 in the OpenAI error shape that
// names the limit; headers within it are read.
func TestOversizedHeadersGet431(t *testing.T) {
	_, addr := serveTest(t)
	for _, c := range []struct {
		size int
		want int
	}{{6 << 10, http.StatusBadGateway}, {12 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[]}`))
		req.Header.Set("X-Big", strings.Repeat("a", c.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%d bytes of header: %v", c.size, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Fatalf("%d bytes of header: status %d, want %d: %s", c.size, resp.StatusCode, c.want, body)
		}
		if c.want == http.StatusRequestHeaderFieldsTooLarge && gjson.GetBytes(body, "error.code").String() != "request_headers_too_large" {
			t.Fatalf("not the OpenAI error shape naming the limit: %s", body)
		}
	}
}
