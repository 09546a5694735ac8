package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// serveTest runs a proxy with a 1 KiB request limit on loopback.
func serveTest(t *testing.T) (*Server, string) {
	t.Helper()
	cfg := &Config{
		Upstreams: []Upstream{{Name: "u", Provider: "openai", BaseURL: "http://127.0.0.1:1"}},
		Limits:    Limits{MaxRequestBytes: 1 << 10},
	}
	s, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return s, ln.Addr().String()
}

// A client that sends its whole oversized body before it reads (as
// urllib3 does) still reads the 413: the server drains the upload instead
// of resetting the connection under it.
func TestLingeringCloseDeliversThe413(t *testing.T) {
	_, addr := serveTest(t)
	for _, chunked := range []bool{false, true} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		body := bytes.Repeat([]byte("a"), 8<<20)
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		func() {
			w := bufio.NewWriter(conn)
			if chunked {
				fmt.Fprintf(w, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
				for i := 0; i < len(body); i += 64 << 10 {
					fmt.Fprintf(w, "%x\r\n%s\r\n", 64<<10, body[i:i+64<<10])
				}
				fmt.Fprintf(w, "0\r\n\r\n")
			} else {
				fmt.Fprintf(w, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", len(body))
				w.Write(body)
			}
			if err := w.Flush(); err != nil {
				t.Errorf("chunked=%v: sending the body: %v", chunked, err)
			}
		}()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("chunked=%v: %v", chunked, err)
		}
		got, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 413 || !bytes.Contains(got, []byte(`"code":"request_too_large"`)) {
			t.Fatalf("chunked=%v: %d %s %v", chunked, resp.StatusCode, got, err)
		}
		conn.Close()
	}
}

// Shutdown ends a lingering close at once rather than after its bound.
func TestShutdownEndsLingeringCloses(t *testing.T) {
	s, addr := serveTest(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Announce 8 MiB, send 2 KiB, then stall without closing.
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", 8<<20, bytes.Repeat([]byte("a"), 2<<10))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != 413 {
		t.Fatalf("%v %v", resp, err)
	}
	start := time.Now()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("shutdown took %s with a lingering close running", d)
	}
}
