package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/internal/replay"
	"github.com/hookgate/hookgate/store"
)

const replayUsage = `usage: hookgate replay --config NEW.yaml --from STORE [--since 24h] [--session S]
                       [--live-hooks] [--key-env NAME] [--fail-on-change] [--json]
       hookgate replay purge --from STORE [--all]

Re-runs the events hookgate captured (audit.capture_events) through NEW's
hooks, offline, and lists every call whose decision would differ, then a
table by hook and tool. STORE is a configuration file (its store section),
a SQLite file, or a postgres:// DSN. The captured events open with the key
in the environment variable NEW's audit.key_env names (or --key-env).
No upstream, channel or person is reached: approvals show as would_ask,
rate limits start empty, and command, http and prompt hooks answer as they
did when captured unless --live-hooks runs them. Exits 0, or 1 with
--fail-on-change when a decision differs; 2 when something is wrong.

purge deletes the captured events that have expired (audit.capture_ttl),
or every captured event with --all.
`

func runReplay(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "purge" {
		return runReplayPurge(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, replayUsage); fs.PrintDefaults() }
	path := fs.String("config", "", "the configuration to replay through (required)")
	from := fs.String("from", "", "where the events were captured: a configuration file, a SQLite file or a postgres:// DSN (required)")
	since := fs.String("since", "", "only events captured at or after this time, or this long ago (24h)")
	session := fs.String("session", "", "only this session")
	live := fs.Bool("live-hooks", false, "run command, http and prompt hooks for real")
	keyEnv := fs.String("key-env", "", "environment variable holding the audit key (default: NEW's audit.key_env)")
	failOnChange := fs.Bool("fail-on-change", false, "exit 1 when a decision differs")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *path == "" || *from == "" {
		fs.Usage()
		return 2
	}
	filter := store.CaptureFilter{SessionID: *session}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "hookgate replay: --since: %v\n", err)
			return 2
		}
		filter.Since = t
	}
	cfg, err := loadForTest(*path, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	key, err := replayKey(cfg, *keyEnv)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate replay:", err)
		return 2
	}
	ctx := context.Background()
	st, err := openFrom(ctx, *from)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate replay:", err)
		return 2
	}
	defer func() { _ = st.Close() }()
	events, err := replay.Load(ctx, st, key, filter)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate replay:", err)
		return 2
	}
	rep, err := replay.Run(cfg, events, replay.Options{LiveHooks: *live})
	if err != nil {
		fmt.Fprintln(stderr, "hookgate replay:", err)
		return 2
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Changed     []replay.Call  `json:"changed"`
			Table       []replay.Row   `json:"table"`
			NotReplayed map[string]int `json:"notReplayed"`
			Replayed    int            `json:"replayed"`
		}{rep.Changed(), rep.Table(), rep.NotReplayed(), len(rep.Calls)})
	} else {
		replay.Print(stdout, rep)
	}
	if *failOnChange && len(rep.Changed()) > 0 {
		return 1
	}
	return 0
}

// replayKey is the audit key from --key-env, else from cfg's
// audit.key_env.
func replayKey(cfg *config.Config, env string) (*store.AuditKey, error) {
	raw := cfg.Audit.Key
	if env == "" {
		env = cfg.Audit.KeyEnv
	} else {
		raw = os.Getenv(env)
	}
	if env == "" {
		return nil, errors.New("no audit key: the configuration sets no audit.key_env; give --key-env NAME")
	}
	if raw == "" {
		return nil, fmt.Errorf("environment variable %s (the audit key that sealed the captured events) is not set", env)
	}
	k, err := store.ParseAuditKey(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", env, err)
	}
	return k, nil
}

// openFrom opens the store --from names: a configuration file's store, a
// postgres:// DSN, or a SQLite file (which must exist).
func openFrom(ctx context.Context, from string) (*store.Store, error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	switch {
	case strings.HasSuffix(from, ".yaml") || strings.HasSuffix(from, ".yml"):
		cfg, err := loadStoreConfig(from)
		if err != nil {
			return nil, err
		}
		return app.OpenStore(ctx, cfg, quiet)
	case strings.HasPrefix(from, "postgres://") || strings.HasPrefix(from, "postgresql://"):
		return store.Open(ctx, store.Options{Driver: store.Postgres, DSN: from, Logger: quiet})
	default:
		if _, err := os.Stat(from); err != nil {
			return nil, fmt.Errorf("--from %s: %w", from, err)
		}
		return store.Open(ctx, store.Options{Driver: store.SQLite, Path: from, Logger: quiet})
	}
}

func runReplayPurge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay purge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, replayUsage); fs.PrintDefaults() }
	from := fs.String("from", "", "the store: a configuration file, a SQLite file or a postgres:// DSN (required)")
	all := fs.Bool("all", false, "delete every captured event, not only the expired ones")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *from == "" {
		fs.Usage()
		return 2
	}
	ctx := context.Background()
	st, err := openFrom(ctx, *from)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate replay purge:", err)
		return 2
	}
	defer func() { _ = st.Close() }()
	n, err := st.PurgeCaptures(ctx, *all)
	if err != nil {
		fmt.Fprintln(stderr, "hookgate replay purge:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d captured events deleted\n", n)
	return 0
}
