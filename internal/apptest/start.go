// Package apptest starts hookgate inside a test, built exactly as
// `hookgate serve` builds it, for the end-to-end, oracle and real-agent
// suites. It owns nothing else.
package apptest

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
)

// Start builds and starts hookgate on a configuration document, named
// name in error messages, and closes it when the test ends. ${NAME}
// resolves from the test's environment. A document without a store:
// section gets a SQLite file in the test's temporary folder. The log goes
// to log at level (io.Discard for none). Any failure fails the test.
func Start(t testing.TB, doc, name string, log io.Writer, level slog.Level) *app.App {
	t.Helper()
	if !strings.Contains(doc, "\nstore:") {
		doc += "store:\n  path: " + filepath.Join(t.TempDir(), "hookgate.db") + "\n"
	}
	cfg, err := config.Parse([]byte(doc), name, os.LookupEnv)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	a, err := app.Build(cfg, slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: level})))
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	if err := a.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(a.Close)
	return a
}
