package app

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookgate/hookgate/config"
)

// An edit followed by SIGHUP (ReloadFile) is one reload: the watcher does
// not read the same files again and report the same refusal a second time;
// a later change is still seen, once. The test makes the watcher's looks
// itself, so no timing decides the outcome.
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

	reports := make(chan error, 16)
	w := a.newWatcher(path, func(err error) { reports <- err })
	// look is the watcher's next two looks at the files: a change is read
	// once it has stayed the same for one look.
	look := func() { w.look(); w.look() }
	look()
	if len(reports) != 0 {
		t.Fatalf("unchanged files were reloaded: %v", <-reports)
	}

	write(good + "hooks: [{id: h, event: bogus_event}]\n")
	if err := a.ReloadFile(path); err == nil {
		t.Fatal("the bad configuration was applied")
	}
	look()
	if len(reports) != 0 {
		t.Fatalf("the watcher reloaded the refused files again: %v", <-reports)
	}

	// A file caught in the middle of a write is not read: the change is
	// read once the files are the same at two looks.
	write("")
	w.look()
	write(good + "# fixed\n")
	w.look()
	if len(reports) != 0 {
		t.Fatalf("a file still changing was read: %v", <-reports)
	}
	w.look()
	if len(reports) != 1 {
		t.Fatalf("want one reload of the fixed files, got %d", len(reports))
	}
	if err := <-reports; err != nil {
		t.Fatalf("the fixed configuration was refused: %v", err)
	}
}
