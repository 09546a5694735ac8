package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
)

// Check builds everything a configuration describes without serving it,
// so that `hookgate validate` reports what `hookgate serve` would refuse.
// Hook problems are listed one per line with their place in the file.
func Check(cfg *config.Config) error {
	engine, err := buildEngine(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		var ces hooks.ConfigErrors
		if !errors.As(err, &ces) {
			return err
		}
		name := cfg.Path
		if name == "" {
			name = "config"
		}
		lines := make([]string, len(ces))
		for i, ce := range ces {
			file := name
			if ce.Origin != "" {
				file = ce.Origin
			}
			id := ""
			if ce.ID != "" {
				id = " " + ce.ID
			}
			lines[i] = fmt.Sprintf("%s:%d: hooks[%d]%s: %v", file, ce.Line, ce.Index, id, ce.Err)
		}
		return fmt.Errorf("invalid configuration (%d problem(s)):\n  %s", len(ces), strings.Join(lines, "\n  "))
	}
	return engine.Close()
}
