package bench

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDefaultResultsDirIsTheRepositoryFolderOnlyAtTheRoot(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	if got := DefaultResultsDir(); got != filepath.Join("bench", "results") {
		t.Errorf("at the repository root: %q", got)
	}
	t.Chdir(filepath.Join(root, "bench"))
	if got, want := DefaultResultsDir(), filepath.Join(os.TempDir(), "hookgate-bench"); got != want {
		t.Errorf("in bench/: %q, want %q", got, want)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(other, "bench"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(other)
	if got, want := DefaultResultsDir(), filepath.Join(os.TempDir(), "hookgate-bench"); got != want {
		t.Errorf("in another module: %q, want %q", got, want)
	}
}
