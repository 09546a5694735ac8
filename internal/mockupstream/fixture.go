package mockupstream

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// FixturesEnv names an environment variable that, when set, overrides where
// the recorded fixtures are looked for.
const FixturesEnv = "HOOKGATE_FIXTURES"

// FixturesDir finds the recorded fixtures: $HOOKGATE_FIXTURES if set, or
// else the first shared/fixtures found walking up from the working
// directory (the repository sits beside shared/, both in a developer's
// checkout and in CI). It follows the same rule as internal/fixtures.Dir,
// which tests should prefer; this one needs no testing.TB, for the demo and
// the benchmark (a test checks that the two agree).
func FixturesDir() (string, error) {
	if d := os.Getenv(FixturesEnv); d != "" {
		if isDir(d) {
			return d, nil
		}
		return "", fmt.Errorf("mockupstream: %s=%s is not a directory", FixturesEnv, d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("mockupstream: locating fixtures: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if c := filepath.Join(d, "shared", "fixtures"); isDir(c) {
			return c, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("mockupstream: no shared/fixtures above " + wd + " (set " + FixturesEnv + ")")
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// FixturePath resolves a fixture name such as "openai/chat-gpt4o-parallel-tools-small.sse"
// against FixturesDir. An absolute path is returned as it is.
func FixturePath(name string) (string, error) {
	if filepath.IsAbs(name) {
		return name, nil
	}
	dir, err := FixturesDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(name)), nil
}

// Fixture reads a recorded body into a 200 response that replays it. The
// file's extension decides the rest: .sse is streamed as text/event-stream
// and .ndjson as application/x-ndjson, both cut by c; .json goes out as a
// plain application/json body and ignores c. Other extensions are streamed
// as text/plain. name is resolved by FixturePath.
func Fixture(name string, c Chunking) (Response, error) {
	p, err := FixturePath(name)
	if err != nil {
		return Response{}, err
	}
	body, err := os.ReadFile(p)
	if err != nil {
		return Response{}, fmt.Errorf("mockupstream: fixture: %w", err)
	}
	switch {
	case strings.HasSuffix(p, ".json"):
		return JSON(http.StatusOK, body), nil
	case strings.HasSuffix(p, ".sse"):
		return Stream(body, c), nil
	case strings.HasSuffix(p, ".ndjson"):
		r := Stream(body, c)
		r.Header.Set("Content-Type", "application/x-ndjson")
		return r, nil
	default:
		r := Stream(body, c)
		r.Header.Set("Content-Type", "text/plain; charset=utf-8")
		return r, nil
	}
}

// MustFixture is Fixture for tests: it fails t on error.
func MustFixture(t TB, name string, c Chunking) Response {
	t.Helper()
	r, err := Fixture(name, c)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return r
}
