package proxy_test

import (
	"net"
	"strings"
	"testing"
	"time"
)

// Through hookgate as `hookgate serve` builds it, timeouts.client_header
// bounds the heads of both listeners: the agent's and the admin's (which
// takes Slack and Feishu callbacks).
func TestClientHeaderTimeoutOnBothListeners(t *testing.T) {
	const bound = 300 * time.Millisecond
	st := startRouteStack(t, echoUpstream(t).URL(), "timeouts:\n  client_header: 300ms\n")
	for _, base := range []string{st.app.URL(), st.app.AdminURL()} {
		start := time.Now()
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for _, b := range []byte("POST /v1/chat/completions HTTP/1.1\r\n" + strings.Repeat("X-Pad: a\r\n", 500)) {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		_ = c.SetReadDeadline(time.Now().Add(bound + 5*time.Second))
		buf := make([]byte, 4<<10)
		var err2 error
		for err2 == nil {
			_, err2 = c.Read(buf)
		}
		c.Close()
		if d := time.Since(start); d < bound-50*time.Millisecond || d > bound+5*time.Second || strings.Contains(err2.Error(), "timeout") {
			t.Fatalf("%s: a dripped head ended after %s (%v), want a close after about %s", base, d, err2, bound)
		}
	}
}
