package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hookgate/hookgate/store"
)

// wouldDecisions are the columns of the dry-run report, the changes first.
var wouldDecisions = []string{"would_block", "would_rewrite", "would_ask", "would_allow"}

// dryRunRow is one line of the dry-run report: a group of a dry_run
// hook's executions and how many ended in each would-decision.
type dryRunRow struct {
	Keys   map[string]string `json:"keys"`
	Counts map[string]int64  `json:"counts"`
	// Changed is every execution but the would_allow ones.
	Changed int64 `json:"changed"`
	// Total counts the runs that happened; Dropped the runs the observer
	// pool dropped (dry_run_dropped rows), which no column counts.
	Total   int64     `json:"total"`
	Dropped int64     `json:"dropped"`
	Last    time.Time `json:"last"`
	// Reason is one reason of the group's changes (the greatest).
	Reason string `json:"reason,omitempty"`

	sortKey string // the keys' values joined, to break ties
}

// writeAuditGroups prints the grouped counts of --group-by, or with
// dryRun the dry-run report (by hook and tool unless keys say otherwise).
// f.Limit bounds the groups printed.
func writeAuditGroups(ctx context.Context, w io.Writer, st *store.Store, f store.ExecutionFilter, keys []string, dryRun, asJSON bool) error {
	if !dryRun {
		groups, err := st.GroupExecutions(ctx, f, keys)
		if err != nil {
			return err
		}
		if asJSON {
			return writeGroupsJSON(w, keys, groups)
		}
		return writeGroupsTable(w, keys, groups)
	}
	if len(keys) == 0 {
		keys = []string{"hook", "tool"}
	}
	limit := f.Limit
	f.Limit = 0 // every (group, decision) pair, pivoted below
	groups, err := st.GroupExecutions(ctx, f, append(slices.Clone(keys), "decision"))
	if err != nil {
		return err
	}
	rows := pivotDryRun(keys, groups)
	drops := droppedByHook(keys, rows) // every group's, before the limit
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if rows == nil {
			rows = []dryRunRow{}
		}
		return enc.Encode(rows)
	}
	return writeDryRunTable(w, keys, rows, drops)
}

// pivotDryRun folds (keys..., decision) groups into one row per keys,
// those that would have changed most first.
func pivotDryRun(keys []string, groups []store.ExecutionGroup) []dryRunRow {
	byKey := map[string]*dryRunRow{}
	var order []string
	for _, g := range groups {
		k := strings.Join(g.Keys[:len(keys)], "\x00")
		r, ok := byKey[k]
		if !ok {
			r = &dryRunRow{Keys: map[string]string{}, Counts: map[string]int64{}, sortKey: k}
			for i, name := range keys {
				r.Keys[name] = g.Keys[i]
			}
			byKey[k] = r
			order = append(order, k)
		}
		decision := g.Keys[len(keys)]
		if g.Last.After(r.Last) {
			r.Last = g.Last
		}
		if decision == store.DecisionDryRunDropped {
			r.Dropped += g.Count
			continue
		}
		r.Counts[decision] += g.Count
		r.Total += g.Count
		if decision != "would_allow" {
			r.Changed += g.Count
			if g.Reason > r.Reason {
				r.Reason = g.Reason
			}
		}
	}
	out := make([]dryRunRow, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	slices.SortStableFunc(out, func(a, b dryRunRow) int {
		if c := cmp.Compare(b.Changed, a.Changed); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return strings.Compare(a.sortKey, b.sortKey)
	})
	return out
}

func writeDryRunTable(w io.Writer, keys []string, rows []dryRunRow, drops []hookDrops) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := make([]string, 0, len(keys)+len(wouldDecisions)+3)
	for _, k := range keys {
		head = append(head, strings.ToUpper(k))
	}
	for _, d := range wouldDecisions {
		head = append(head, strings.ToUpper(d))
	}
	head = append(head, "TOTAL", "DROPPED", "LAST", "REASON")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cells := make([]string, 0, len(head))
		for _, k := range keys {
			cells = append(cells, groupCell(k, r.Keys[k]))
		}
		for _, d := range wouldDecisions {
			cells = append(cells, fmt.Sprint(r.Counts[d]))
		}
		cells = append(cells, fmt.Sprint(r.Total), fmt.Sprint(r.Dropped), r.Last.UTC().Format("2006-01-02T15:04:05Z"), cell(r.Reason))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "(no dry-run hook executions match)")
		return err
	}
	for _, d := range drops {
		fmt.Fprintf(w, "%d dry %s of %s %s dropped (observer pool full): the report undercounts\n",
			d.n, plural(d.n, "run", "runs"), d.hook, plural(d.n, "was", "were"))
	}
	// A drop is recorded through the audit queue without waiting for it:
	// with that queue full too, only the metric counts it.
	_, err := fmt.Fprintln(w, "(a dry run dropped while the audit queue was full too is counted only in hookgate_dry_run_dropped_total)")
	return err
}

// hookDrops is how many runs of one dry_run hook were dropped.
type hookDrops struct {
	hook string
	n    int64
}

// droppedByHook sums the rows' drops per hook, in the rows' order; without
// hook among keys, all the rows' drops go to "the dry_run hooks".
func droppedByHook(keys []string, rows []dryRunRow) []hookDrops {
	byHook := slices.Contains(keys, "hook")
	var out []hookDrops
	at := map[string]int{}
	for _, r := range rows {
		if r.Dropped == 0 {
			continue
		}
		name := "the dry_run hooks"
		if byHook {
			name = groupCell("hook", r.Keys["hook"])
		}
		i, ok := at[name]
		if !ok {
			i = len(out)
			at[name] = i
			out = append(out, hookDrops{hook: name})
		}
		out[i].n += r.Dropped
	}
	return out
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func writeGroupsTable(w io.Writer, keys []string, groups []store.ExecutionGroup) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := make([]string, 0, len(keys)+2)
	for _, k := range keys {
		head = append(head, strings.ToUpper(k))
	}
	head = append(head, "COUNT", "LAST")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, g := range groups {
		cells := make([]string, 0, len(head))
		for i, k := range keys {
			cells = append(cells, groupCell(k, g.Keys[i]))
		}
		cells = append(cells, fmt.Sprint(g.Count), g.Last.UTC().Format("2006-01-02T15:04:05Z"))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(groups) == 0 {
		_, err := fmt.Fprintln(w, "(no hook executions match)")
		return err
	}
	return nil
}

// groupCell shows an empty key value: a removed hook, or no tool, tenant
// or agent.
func groupCell(key, v string) string {
	if v != "" {
		return cell(v)
	}
	if key == "hook" {
		return "(removed)"
	}
	return "-"
}

// groupJSON is one group of `hookgate audit --group-by ... --json`.
type groupJSON struct {
	Keys  map[string]string `json:"keys"`
	Count int64             `json:"count"`
	Last  time.Time         `json:"last"`
}

func writeGroupsJSON(w io.Writer, keys []string, groups []store.ExecutionGroup) error {
	out := make([]groupJSON, len(groups))
	for i, g := range groups {
		out[i] = groupJSON{Keys: map[string]string{}, Count: g.Count, Last: g.Last.UTC()}
		for j, k := range keys {
			out[i].Keys[k] = g.Keys[j]
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
