package builtin

import (
	"fmt"
	"strings"
	"time"

	"github.com/hookgate/hookgate/hooks"
)

// onlyOn refuses a hook entry whose event is not want: each built-in
// judges or contributes to one event only, and a misplaced one would
// silently do nothing.
func onlyOn(name string, cfg hooks.BuiltinConfig, want hooks.EventName, why string) error {
	if cfg.Event != want {
		return fmt.Errorf("%s %s: use it on %s, not %s", name, why, want, cfg.Event)
	}
	return nil
}

// duration is a `with:` duration written the Go way ("30s", "1m", "1h30m").
type duration time.Duration

// UnmarshalJSON accepts a duration string.
func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := jsonUnmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration such as \"30s\" or \"1m\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as \"30s\" or \"1m\": %w", err)
	}
	*d = duration(v)
	return nil
}

// shortDuration prints d without the zero units time.Duration.String
// keeps ("1m" rather than "1m0s"), for block reasons.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
