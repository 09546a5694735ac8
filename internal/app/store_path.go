package app

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/store"
)

// storeFileName is the SQLite file a configuration without store.path
// keeps using when it already exists beside the configuration.
const storeFileName = "hookgate.db"

// sqlitePath is where the SQLite store of cfg lives.
//
//   - store.path set: that file, relative to the configuration's folder
//     (":memory:" keeps nothing).
//   - unset, the configuration read from a file: hookgate.db beside the
//     file when one exists there already; otherwise a file of its own in
//     the user's state folder ($XDG_STATE_HOME/hookgate, else
//     ~/.local/state/hookgate), named after the configuration and a hash
//     of its absolute path, so that serving a configuration inside a
//     checkout writes nothing into the checkout, and two configurations
//     never share audit rows.
//   - unset, a configuration built in code: hookgate.db in its BaseDir
//     (or the working folder when it has none).
func sqlitePath(cfg *config.Config) string {
	path := cfg.Store.Path
	if path == store.MemoryPath {
		return path
	}
	if path != "" {
		if !filepath.IsAbs(path) && cfg.BaseDir != "" {
			path = filepath.Join(cfg.BaseDir, path)
		}
		return path
	}
	beside := storeFileName
	if cfg.BaseDir != "" {
		beside = filepath.Join(cfg.BaseDir, storeFileName)
	}
	if cfg.Path == "" {
		return beside
	}
	if _, err := os.Stat(beside); err == nil {
		return beside
	}
	dir := stateDir()
	if dir == "" {
		return beside
	}
	return filepath.Join(dir, "hookgate", stateFileName(cfg))
}

// stateFileName names a configuration's own store: its file name without
// extension and the first 12 hex digits of the sha256 of its absolute path.
func stateFileName(cfg *config.Config) string {
	abs := filepath.Join(cfg.BaseDir, filepath.Base(cfg.Path))
	sum := sha256.Sum256([]byte(abs))
	name := strings.TrimSuffix(filepath.Base(cfg.Path), filepath.Ext(cfg.Path))
	return name + "-" + hex.EncodeToString(sum[:6]) + ".db"
}

// stateDir is the user's folder for state that outlives a run.
func stateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state")
	}
	return ""
}
