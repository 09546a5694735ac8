package hooks

import "log/slog"

// Deps is what the wiring hands to handler constructors.
type Deps struct {
	// BaseDir resolves relative paths such as a script's `file:`.
	BaseDir string
	// Judges maps an upstream name to the endpoint prompt handlers call.
	// The empty name is the default (the first upstream).
	Judges map[string]JudgeEndpoint
	// Logger receives warnings (stripped mutations, dropped events). Nil
	// means slog.Default().
	Logger *slog.Logger
}

// JudgeEndpoint is an OpenAI-compatible endpoint a prompt handler asks.
// The key is used only for that request and never reaches hook input.
type JudgeEndpoint struct {
	BaseURL string
	APIKey  string
}
