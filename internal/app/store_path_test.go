package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/config"
)

// A configuration read from a file without store.path keeps its store in
// the user's state folder, one file per configuration, unless a
// hookgate.db already sits beside it.
func TestSQLitePathDefaultStaysOutOfTheConfigFolder(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	confDir := t.TempDir()
	a := &config.Config{Path: filepath.Join(confDir, "a.yaml"), BaseDir: confDir, Store: config.Store{Driver: "sqlite"}}
	b := &config.Config{Path: filepath.Join(confDir, "b.yaml"), BaseDir: confDir, Store: config.Store{Driver: "sqlite"}}
	pa, pb := sqlitePath(a), sqlitePath(b)
	if !strings.HasPrefix(pa, filepath.Join(state, "hookgate")+string(filepath.Separator)) || !strings.HasPrefix(filepath.Base(pa), "a-") {
		t.Fatalf("default path %s is not a's own file under the state folder %s", pa, state)
	}
	if pa == pb {
		t.Fatalf("two configurations share one store: %s", pa)
	}
	if sqlitePath(a) != pa {
		t.Fatal("the default path is not stable")
	}
	beside := filepath.Join(confDir, "hookgate.db")
	if err := os.WriteFile(beside, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := sqlitePath(a); got != beside {
		t.Fatalf("an existing hookgate.db beside the configuration is not kept: %s", got)
	}
}
