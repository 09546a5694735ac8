package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/hookgate/hookgate/approvals"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/store"
)

const approvalsUsage = `usage: hookgate approvals list    --config FILE [--status pending|approved|rejected|expired|all] [--json]
       hookgate approvals approve --config FILE [--by NAME] [--comment TEXT] ID
       hookgate approvals reject  --config FILE [--by NAME] [--comment TEXT] ID
       hookgate approvals approve|reject --admin URL [--token-env NAME] [--comment TEXT] ID

With --config, answers approval questions by writing to the store
directly, so it works while hookgate is down: a call retried after a
restart finds the answer. --by defaults to "cli:<your user name>".

With --admin (the admin listener's URL, e.g. http://127.0.0.1:8788), the
answer goes through the admin API, the path the console answers through:
the running hookgate records the admin token's name as who answered and
releases the held call at once. The token is read from the variable
--token-env names (default HOOKGATE_ADMIN_TOKEN).

--comment is recorded with the answer and shown in the console, the
admin API and the audit.
`

func runApprovals(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, approvalsUsage)
		return 2
	}
	verb := args[0]
	fs := flag.NewFlagSet("approvals "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, approvalsUsage); fs.PrintDefaults() }
	path := fs.String("config", "hookgate.yaml", "configuration file (its store section is read)")
	status := fs.String("status", "pending", "list: which questions (all for every status)")
	asJSON := fs.Bool("json", false, "list: print JSON")
	by := fs.String("by", defaultApprover(), "approve/reject: the name recorded as who answered (not with --admin)")
	comment := fs.String("comment", "", "approve/reject: a comment recorded with the answer")
	admin := fs.String("admin", "", "approve/reject: answer through the admin API at this URL instead of the store")
	tokenEnv := fs.String("token-env", defaultAdminTokenEnv, "with --admin: the variable holding the admin token")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *admin != "" {
		return approvalsThroughAdmin(verb, fs, *admin, *tokenEnv, strings.TrimSpace(*comment), stdout, stderr)
	}
	cfg, err := loadStoreConfig(*path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	opts := app.StoreOptions(cfg, nil)
	if opts.Driver == store.SQLite && opts.Path != store.MemoryPath {
		if _, err := os.Stat(opts.Path); err != nil {
			fmt.Fprintf(stderr, "hookgate approvals: no store at %s (store.path): %v\n", opts.Path, err)
			return 1
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := app.OpenStore(ctx, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		fmt.Fprintf(stderr, "hookgate approvals: %v\n", err)
		return 1
	}
	defer func() { _ = st.Close() }() // a read-and-answer command: nothing left to flush that matters

	switch verb {
	case "list":
		if fs.NArg() != 0 {
			fmt.Fprint(stderr, approvalsUsage)
			return 2
		}
		if *status == "all" {
			*status = ""
		}
		rows, err := st.ListConfirmations(ctx, store.ConfirmationStatus(*status), 0)
		if err != nil {
			fmt.Fprintf(stderr, "hookgate approvals: %v\n", err)
			return 1
		}
		if *asJSON {
			out := make([]map[string]any, len(rows))
			for i, c := range rows {
				out[i] = approvals.Describe(c)
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(out); err != nil {
				return 1
			}
			return 0
		}
		for _, c := range rows {
			fmt.Fprintln(stdout, approvals.String(c))
		}
		if len(rows) == 0 {
			fmt.Fprintln(stderr, "no approval questions")
		}
		return 0
	case "approve", "reject":
		if fs.NArg() != 1 {
			fmt.Fprint(stderr, approvalsUsage)
			return 2
		}
		c, err := approvals.Decide(ctx, st, fs.Arg(0), verb == "approve", *by, strings.TrimSpace(*comment))
		if err != nil {
			fmt.Fprintf(stderr, "hookgate approvals %s: %v\n", verb, err)
			return 1
		}
		fmt.Fprintln(stdout, approvals.String(c), "by", c.RespondedBy)
		return 0
	default:
		fmt.Fprintf(stderr, "hookgate approvals: unknown verb %q\n\n%s", verb, approvalsUsage)
		return 2
	}
}

// approvalsThroughAdmin answers through the admin API (--admin).
func approvalsThroughAdmin(verb string, fs *flag.FlagSet, admin, tokenEnv, comment string, stdout, stderr io.Writer) int {
	if verb != "approve" && verb != "reject" {
		fmt.Fprintf(stderr, "hookgate approvals %s: --admin answers questions (approve, reject) only\n", verb)
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, approvalsUsage)
		return 2
	}
	byGiven := false
	fs.Visit(func(f *flag.Flag) { byGiven = byGiven || f.Name == "by" })
	if byGiven {
		fmt.Fprintln(stderr, "hookgate approvals: --by does not go with --admin: the admin token's name is recorded as who answered")
		return 2
	}
	token := strings.TrimSpace(os.Getenv(tokenEnv))
	if token == "" {
		fmt.Fprintf(stderr, "hookgate approvals: %s is not set: --admin needs an admin token in it\n", tokenEnv)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := answerThroughAdmin(ctx, admin, token, fs.Arg(0), verb == "approve", comment)
	if err != nil {
		fmt.Fprintf(stderr, "hookgate approvals %s: %v\n", verb, err)
		return 1
	}
	line := fmt.Sprintf("%s  %-8s  %-12s  by %s", out.ID, out.Status, out.Tool, out.RespondedBy)
	if out.Comment != "" {
		line += fmt.Sprintf("  comment=%q", out.Comment)
	}
	fmt.Fprintln(stdout, line)
	return 0
}

func defaultApprover() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	return "cli"
}
