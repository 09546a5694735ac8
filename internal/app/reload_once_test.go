package app

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
)

// An edit followed by SIGHUP (ReloadFile) is one reload: the watcher does
// not read the same files again and report the same refusal a second time.
func TestReloadedFilesAreNotReloadedAgainByTheWatcher(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hookgate.yaml")
	good := "listen: 127.0.0.1:0\nadmin: {listen: \"127.0.0.1:0\"}\nupstreams: [{name: u, base_url: \"http://127.0.0.1:1\"}]\n" +
		"store: {path: " + filepath.Join(dir, "h.db") + "}\n"
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Build(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	var mu sync.Mutex
	var reports []error
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Watch(ctx, path, 5*time.Millisecond, func(err error) {
			mu.Lock()
			reports = append(reports, err)
			mu.Unlock()
		})
	}()
	defer func() { cancel(); <-done }()
	time.Sleep(20 * time.Millisecond) // the watcher has looked at the good files

	// A bad edit, then SIGHUP before the watcher's next look.
	write(good + "hooks: [{id: h, event: bogus_event}]\n")
	if err := a.ReloadFile(path); err == nil {
		t.Fatal("the bad configuration was applied")
	}
	time.Sleep(60 * time.Millisecond)
	mu.Lock()
	n := len(reports)
	mu.Unlock()
	if n != 0 {
		t.Fatalf("the watcher reloaded the refused files again: %v", reports)
	}

	// A change after that is still seen, once.
	write(good + "# fixed\n")
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n = len(reports)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(40 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 || reports[0] != nil {
		t.Fatalf("want one applied reload after the fix, got %v", reports)
	}
}
