package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hookgate/hookgate/config"
)

// ReloadFile reads the configuration at path again and applies it; a bad
// one is refused (and returned) while the running one keeps serving.
// It remembers the files' fingerprint, taken before reading them, so that
// Watch does not reload (and report) the same files a second time: a
// change made during the reload still differs from it.
func (a *App) ReloadFile(path string) error {
	fp := a.fingerprint(path)
	a.reloadedFiles.Store(&fp)
	cfg, err := config.Load(path)
	if err != nil {
		a.reloads.WithLabelValues("refused").Inc()
		a.reloadRefused(err)
		return err
	}
	return a.Reload(cfg)
}

// Watch reloads the configuration at path whenever it, or a tenant's hooks
// file it names, changes; it polls every interval until ctx is done.
// Polling sees editors' rename-into-place writes and network filesystems
// alike. A change is read once the files have stayed the same for one
// interval, so that a file caught in the middle of a write is not refused
// first. Each outcome goes to report (nil error: applied). Files that
// ReloadFile has already read (after a SIGHUP, say) are not read again.
func (a *App) Watch(ctx context.Context, path string, interval time.Duration, report func(error)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	w := a.newWatcher(path, report)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			w.look()
		}
	}
}

// watcher is Watch's state between two looks at the files.
type watcher struct {
	a      *App
	path   string
	report func(error)
	// seen is the fingerprint of the previous look.
	seen string
}

func (a *App) newWatcher(path string, report func(error)) *watcher {
	start := a.fingerprint(path)
	a.reloadedFiles.CompareAndSwap(nil, &start)
	return &watcher{a: a, path: path, report: report, seen: start}
}

// look reloads the files if they differ from what was last read and have
// not changed since the previous look.
func (w *watcher) look() {
	now := w.a.fingerprint(w.path)
	stable := now == w.seen
	w.seen = now
	if !stable || now == *w.a.reloadedFiles.Load() {
		return
	}
	w.report(w.a.ReloadFile(w.path))
}

// fingerprint summarises the watched files' sizes and modification times.
func (a *App) fingerprint(path string) string {
	files := []string{path}
	cfg := a.CurrentConfig()
	for _, t := range cfg.Tenants {
		if t.HooksFile == "" {
			continue
		}
		f := t.HooksFile
		if !filepath.IsAbs(f) {
			f = filepath.Join(cfg.BaseDir, f)
		}
		files = append(files, f)
	}
	out := ""
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			out += f + ":missing;"
			continue
		}
		out += fmt.Sprintf("%s:%d:%d;", f, st.ModTime().UnixNano(), st.Size())
	}
	return out
}
