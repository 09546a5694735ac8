package app

import "github.com/hookgate/hookgate/config"

// Check builds everything a configuration describes without serving it,
// so that `hookgate validate` reports what `hookgate serve` would refuse.
func Check(cfg *config.Config) error {
	_, err := Build(cfg, nil)
	return err
}
