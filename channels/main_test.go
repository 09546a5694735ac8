package channels

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hookgate/hookgate/config"
)

// TestMain fails the package if any test leaves a goroutine behind (an
// unclosed connection, a token fetch that outlived its caller).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// t0 is the fixed "now" of every test that does not move the clock.
var t0 = time.Unix(1_750_000_000, 0)

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// build constructs a channel on a fixed clock and closes it with the test.
func build(t *testing.T, cfg config.Channel, now func() time.Time) Channel {
	t.Helper()
	if now == nil {
		now = func() time.Time { return t0 }
	}
	ch, err := buildChannel(cfg, withClock(now))
	if err != nil {
		t.Fatalf("buildChannel: %v", err)
	}
	t.Cleanup(ch.Close)
	return ch
}

// wantErr checks that err wraps want (nil: no error).
func wantErr(t *testing.T, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("error = %v, want %v", err, want)
	}
}

// noSecrets fails when s contains any of the secrets.
func noSecrets(t *testing.T, s string, secrets ...string) {
	t.Helper()
	for _, sec := range secrets {
		if sec != "" && strings.Contains(s, sec) {
			t.Fatalf("%q leaks a secret", s)
		}
	}
}
