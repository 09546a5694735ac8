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
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/store"
)

const auditUsage = `usage: hookgate audit --config FILE [--session S] [--hook H] [--decision D]
                      [--tool T] [--tenant T] [--agent A] [--since T] [--limit N]
                      [--decrypt] [--json]
       hookgate audit --config FILE --group-by hook,tool,tenant,agent,... [filters]
       hookgate audit --config FILE --dry-run [--group-by hook,tool] [filters]

Lists the recorded hook executions, newest first. --since takes a time
(2026-05-01, 2026-05-01T12:00:00Z) or a duration back from now (24h).
--decrypt shows each error's full text, sealed in the store under the key
named by audit.key_env, which must then be set.

--group-by counts the executions by the keys given (hook, tool, tenant,
agent, event, decision, session), largest groups first. --dry-run reports
what dry_run hooks would have done, grouped by hook and tool (or
--group-by), with a count per would-decision, those that would have
changed most first, and how many runs the observer pool dropped (those
the report does not count).
`

// auditDecisions are the decisions a record can hold.
var auditDecisions = []string{"allow", "rewrite", "block", "error", "timeout", "expired", "bypassed",
	"would_block", "would_rewrite", "would_allow", "would_ask", store.DecisionDryRunDropped}

func runAudit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, auditUsage); fs.PrintDefaults() }
	path := fs.String("config", "hookgate.yaml", "configuration file (its store and audit sections are read)")
	session := fs.String("session", "", "only this session")
	hook := fs.String("hook", "", "only this hook id")
	decision := fs.String("decision", "", "only this decision: "+strings.Join(auditDecisions, ", "))
	since := fs.String("since", "", "only executions at or after this time, or this long ago")
	limit := fs.Int("limit", 100, "at most this many rows, newest first (0: all)")
	decrypt := fs.Bool("decrypt", false, "show the full error details (needs the audit key)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	tool := fs.String("tool", "", "only this tool (by name)")
	tenant := fs.String("tenant", "", "only this tenant")
	agent := fs.String("agent", "", "only this agent id")
	dryRun := fs.Bool("dry-run", false, "report what dry_run hooks would have done, grouped by hook and tool")
	groupBy := fs.String("group-by", "", "count executions grouped by these keys, comma-separated: "+strings.Join(store.GroupKeys(), ", "))
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hookgate audit: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *decision != "" && !slices.Contains(auditDecisions, *decision) {
		fmt.Fprintf(stderr, "hookgate audit: --decision %q: want one of %s\n", *decision, strings.Join(auditDecisions, ", "))
		return 2
	}
	var keys []string
	if *groupBy != "" {
		for _, k := range strings.Split(*groupBy, ",") {
			k = strings.TrimSpace(k)
			if !slices.Contains(store.GroupKeys(), k) {
				fmt.Fprintf(stderr, "hookgate audit: --group-by %q: want keys among %s\n", k, strings.Join(store.GroupKeys(), ", "))
				return 2
			}
			if *dryRun && k == "decision" {
				fmt.Fprintln(stderr, "hookgate audit: --dry-run already counts each would-decision: leave decision out of --group-by")
				return 2
			}
			keys = append(keys, k)
		}
	}
	filter := store.ExecutionFilter{SessionID: *session, HookID: *hook, Decision: *decision, Limit: *limit,
		Tool: *tool, Tenant: *tenant, Agent: *agent, DryRun: *dryRun}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "hookgate audit: --since: %v\n", err)
			return 2
		}
		filter.Since = t
	}

	cfg, err := loadStoreConfig(*path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	var key *store.AuditKey
	if *decrypt {
		switch {
		case cfg.Audit.KeyEnv == "":
			fmt.Fprintf(stderr, "hookgate audit: --decrypt: %s sets no audit.key_env, so no error details were kept; only the cut error text is shown\n", *path)
		case cfg.Audit.Key == "":
			fmt.Fprintf(stderr, "hookgate audit: --decrypt: environment variable %s (audit.key_env) is not set: set it to the audit key to read error details\n", cfg.Audit.KeyEnv)
			return 1
		default:
			if key, err = store.ParseAuditKey(cfg.Audit.Key); err != nil {
				fmt.Fprintf(stderr, "hookgate audit: --decrypt: %s: %v\n", cfg.Audit.KeyEnv, err)
				return 1
			}
		}
	}

	opts := app.StoreOptions(cfg, nil)
	if opts.Driver == store.SQLite && opts.Path == store.MemoryPath {
		// An in-memory store lives and dies with its serve process: there
		// is nothing another process could read.
		fmt.Fprintf(stderr, "hookgate audit: %s keeps its store in memory (store.path: %q): nothing is kept after hookgate stops, and no other process can read it; set store.path to a file to keep an audit log\n", *path, store.MemoryPath)
		return 1
	}
	if opts.Driver == store.SQLite {
		// Opening would create an empty store: say that there is none.
		if _, err := os.Stat(opts.Path); err != nil {
			fmt.Fprintf(stderr, "hookgate audit: no audit store at %s (store.path): %v\n", opts.Path, err)
			return 1
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := app.OpenStore(ctx, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		fmt.Fprintf(stderr, "hookgate audit: %v\n", err)
		return 1
	}
	defer func() { _ = st.Close() }() // the store was only read
	if *dryRun || len(keys) > 0 {
		if err := writeAuditGroups(ctx, stdout, st, filter, keys, *dryRun, *asJSON); err != nil {
			fmt.Fprintf(stderr, "hookgate audit: %v\n", err)
			return 1
		}
		return 0
	}
	rows, err := st.ListExecutions(ctx, filter)
	if err != nil {
		fmt.Fprintf(stderr, "hookgate audit: %v\n", err)
		return 1
	}
	if *asJSON {
		err = writeAuditJSON(stdout, rows, key)
	} else {
		err = writeAuditTable(stdout, rows, key)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hookgate audit: %v\n", err)
		return 1
	}
	return 0
}

// loadStoreConfig reads the configuration for its store and audit
// sections only: an auditor's shell need not hold the upstreams' keys. An
// unset variable is an error only where these sections need it; an unset
// audit key just leaves details sealed.
func loadStoreConfig(path string) (*config.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	const unset = "\x00unset\x00"
	missing := map[string]bool{}
	lookup := func(name string) (string, bool) {
		if v, ok := os.LookupEnv(name); ok && v != "" {
			return v, true
		}
		missing[name] = true
		return unset + name, true
	}
	cfg, err := config.Parse(data, path, lookup)
	if cfg == nil {
		return nil, err
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		var ours []config.Problem
		for _, p := range ce.Problems {
			if strings.HasPrefix(p.Path, "store") || strings.HasPrefix(p.Path, "audit") {
				ours = append(ours, p)
			}
		}
		if len(ours) > 0 {
			return nil, &config.Error{Problems: ours}
		}
	} else if err != nil {
		return nil, err
	}
	if i := strings.Index(cfg.Store.DSN, unset); i >= 0 && cfg.Store.Driver == "postgres" {
		name := cfg.Store.DSN[i+len(unset):]
		if j := strings.IndexFunc(name, func(r rune) bool {
			return r != '_' && (r < '0' || r > '9') && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z')
		}); j >= 0 {
			name = name[:j]
		}
		return nil, fmt.Errorf("%s: store.dsn: environment variable %s is not set", path, name)
	}
	if missing[cfg.Audit.KeyEnv] {
		cfg.Audit.Key = ""
	}
	cfg.Path = path
	if abs, err := filepath.Abs(path); err == nil {
		cfg.BaseDir = filepath.Dir(abs)
	}
	return cfg, nil
}

// parseSince reads a time or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a duration back from now must be positive", s)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a time (2026-05-01, 2026-05-01T12:00:00Z) nor a duration (24h)", s)
}

// detail opens a row's sealed error; "" without a key or a detail.
func detail(key *store.AuditKey, x store.Execution) string {
	if key == nil || x.ErrorDetail == nil {
		return ""
	}
	d, err := key.Open(x.ID, x.ErrorDetail)
	if err != nil {
		return "(cannot decrypt: another key?)"
	}
	return d
}

func writeAuditTable(w io.Writer, rows []store.Execution, key *store.AuditKey) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tHOOK\tEVENT\tTOOL\tDECISION\tMS\tSESSION\tINPUT\tREASON\tERROR")
	for _, x := range rows {
		hook := x.HookID
		if hook == "" {
			hook = "(removed)"
		}
		errText := x.Error
		if d := detail(key, x); d != "" {
			errText = d
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\n",
			x.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), cell(hook), x.Event, cell(x.Tool), x.Decision,
			float64(x.Duration)/float64(time.Millisecond), cell(x.SessionID), short(x.InputHash, 12), cell(x.Reason), cell(errText))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "(no hook executions match)")
		return err
	}
	return nil
}

// cell keeps a value on one table line.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("\t", " ", "\r", `\r`, "\n", `\n`).Replace(s)
}

func short(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// auditJSON is one row of `hookgate audit --json`.
type auditJSON struct {
	ID          string    `json:"id"`
	CreatedAt   time.Time `json:"created_at"`
	HookID      *string   `json:"hook_id"`
	HookVersion string    `json:"hook_version,omitempty"`
	Event       string    `json:"event"`
	Tool        string    `json:"tool,omitempty"`
	Tenant      string    `json:"tenant,omitempty"`
	Agent       string    `json:"agent,omitempty"`
	Decision    string    `json:"decision"`
	Reason      string    `json:"reason,omitempty"`
	SessionID   string    `json:"session_id"`
	InputHash   string    `json:"input_hash"`
	SideEffects []string  `json:"side_effects,omitempty"`
	DurationMS  float64   `json:"duration_ms"`
	DedupKey    string    `json:"dedup_key"`
	Error       string    `json:"error,omitempty"`
	ErrorDetail string    `json:"error_detail,omitempty"`
}

func writeAuditJSON(w io.Writer, rows []store.Execution, key *store.AuditKey) error {
	out := make([]auditJSON, len(rows))
	for i, x := range rows {
		out[i] = auditJSON{
			ID: x.ID, CreatedAt: x.CreatedAt.UTC(), HookVersion: x.HookVersion, Event: x.Event, Decision: x.Decision,
			SessionID: x.SessionID, InputHash: x.InputHash, SideEffects: x.SideEffects,
			DurationMS: float64(x.Duration) / float64(time.Millisecond), DedupKey: x.DedupKey,
			Error: x.Error, ErrorDetail: detail(key, x),
			Tool: x.Tool, Tenant: x.Tenant, Agent: x.Agent, Reason: x.Reason,
		}
		if x.HookID != "" {
			out[i].HookID = &x.HookID
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
