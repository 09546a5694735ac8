package providers

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// readFixture reads one fixture by its path relative to the fixtures folder.
func readFixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures.Dir(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
