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
func (a *App) ReloadFile(path string) error {
	cfg, err := config.Load(path)
	if err != nil {
		a.reloads.WithLabelValues("refused").Inc()
		return err
	}
	return a.Reload(cfg)
}

// Watch reloads the configuration at path whenever it, or a tenant's hooks
// file it names, changes; it polls every interval until ctx is done.
// Polling sees editors' rename-into-place writes and network filesystems
// alike. Each outcome goes to report (nil error: applied).
func (a *App) Watch(ctx context.Context, path string, interval time.Duration, report func(error)) {
	last := a.fingerprint(path)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			now := a.fingerprint(path)
			if now == last {
				continue
			}
			last = now
			report(a.ReloadFile(path))
		}
	}
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
