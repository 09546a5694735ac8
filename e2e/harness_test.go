// Package e2e runs hookgate end to end: a mock upstream replaying recorded
// provider traffic on loopback, hookgate built exactly as `hookgate serve`
// builds it, and real client SDKs as the agent.
package e2e

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/apptest"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// stack is a mock upstream with hookgate in front of it.
type stack struct {
	mock *mockupstream.Server
	app  *app.App
}

// startStack starts a mock upstream and hookgate configured by extra YAML
// (appended to a config whose only upstream is the mock).
func startStack(t *testing.T, extra string) *stack {
	t.Helper()
	mock := mockupstream.Start(t)
	doc := "listen: 127.0.0.1:0\nadmin:\n  listen: 127.0.0.1:0\nupstreams:\n  - name: mock\n    provider: openai\n    base_url: " + mock.URL() + "\n" + extra
	return &stack{mock: mock, app: startApp(t, doc)}
}

// startApp starts hookgate on a configuration document. ${NAME} resolves
// from the test's environment.
func startApp(t *testing.T, doc string) *app.App {
	t.Helper()
	return apptest.Start(t, doc, "e2e.yaml", io.Discard, slog.LevelInfo)
}

// rawPost sends body to base+path with a plain HTTP client and returns the
// status, headers and the whole response body as bytes.
func rawPost(t *testing.T, base, path string, body []byte, header map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := newPost(base+path, body, header)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return resp.StatusCode, resp.Header, got
}

// writeExecutable writes a script for a command hook.
func writeExecutable(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// newPost builds a JSON POST with extra headers.
func newPost(url string, body []byte, header map[string]string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return req, nil
}

// httpClient is the plain client of these tests.
func httpClient() *http.Client { return &http.Client{Timeout: 30 * time.Second} }
