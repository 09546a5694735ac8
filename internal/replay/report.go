package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what a replay found.
type Report struct {
	Calls []Call `json:"calls"`
}

// Changed lists the calls whose decision differs, in the order they were
// captured.
func (r *Report) Changed() []Call {
	out := []Call{}
	for _, c := range r.Calls {
		if c.Changed() {
			out = append(out, c)
		}
	}
	return out
}

// Row counts the changed calls of one tool that went from one decision to
// another because of one hook.
type Row struct {
	// Hook is the hook that decides now (blocks, asks, fails) or, for a
	// call the new configuration lets through, the one that decided
	// before.
	Hook  string `json:"hook"`
	Tool  string `json:"tool"`
	Event string `json:"event"`
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"`
}

// Table groups the changed calls by hook, tool and change, the largest
// groups first.
func (r *Report) Table() []Row {
	idx := map[Row]int{}
	for _, c := range r.Changed() {
		hook := c.New.HookID
		if hook == "" {
			hook = c.Old.HookID
		}
		k := Row{Hook: hook, Tool: c.Tool, Event: c.Event, From: c.Old.Decision, To: c.New.Decision}
		idx[k]++
	}
	out := make([]Row, 0, len(idx))
	for k, n := range idx {
		k.Count = n
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return fmt.Sprint(a.Hook, a.Tool, a.From, a.To) < fmt.Sprint(b.Hook, b.Tool, b.From, b.To)
	})
	return out
}

// NotReplayed counts, by hook, the events on which a command, http or
// prompt hook answered with its captured decision instead of running.
func (r *Report) NotReplayed() map[string]int {
	out := map[string]int{}
	for _, c := range r.Calls {
		for _, id := range c.NotReplayed {
			out[id]++
		}
	}
	return out
}

// past and future are how a decision reads in a sentence.
var (
	past   = map[string]string{"allow": "allowed", "rewrite": "rewritten", "block": "blocked", "error": "failed", WouldAsk: "put to a person"}
	future = map[string]string{"allow": "allowed", "rewrite": "rewritten", "block": "blocked", "error": "fail", WouldAsk: "put to a person"}
)

// Sentence says a row in words: "12 calls allowed before would now be
// blocked by no-recursive-delete (Bash)".
func (w Row) Sentence() string {
	noun := "calls"
	if w.Count == 1 {
		noun = "call"
	}
	if w.Event != "pre_tool_use" {
		noun = w.Event + " events"
		if w.Count == 1 {
			noun = w.Event + " event"
		}
	}
	from, to := word(past, w.From), word(future, w.To)
	tool := ""
	if w.Tool != "" {
		tool = " (" + w.Tool + ")"
	}
	if w.To == "allow" || w.To == "rewrite" {
		return fmt.Sprintf("%d %s %s by %s before would now be %s%s", w.Count, noun, from, w.Hook, to, tool)
	}
	if w.To == "error" {
		return fmt.Sprintf("%d %s %s before would now fail in %s%s", w.Count, noun, from, w.Hook, tool)
	}
	return fmt.Sprintf("%d %s %s before would now be %s by %s%s", w.Count, noun, from, to, w.Hook, tool)
}

func word(m map[string]string, d string) string {
	if s, ok := m[d]; ok {
		return s
	}
	return d
}

// Print writes the report for a person: a summary, every changed call,
// the table by hook and tool, and the hooks not replayed.
func Print(w io.Writer, r *Report) {
	changed := r.Changed()
	sessions := map[string]bool{}
	for _, c := range r.Calls {
		sessions[c.SessionID] = true
	}
	fmt.Fprintf(w, "replayed %d events from %d sessions: %d decisions differ\n", len(r.Calls), len(sessions), len(changed))
	if len(r.Calls) == 0 {
		fmt.Fprintln(w, "no captured events selected: is audit.capture_events on where they were recorded, and are they younger than audit.capture_ttl and --since?")
	}
	if len(changed) > 0 {
		fmt.Fprintln(w, "\nchanged:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range changed {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s -> %s\n", c.At.UTC().Format(time.RFC3339), c.SessionID, c.Event, c.Tool,
				short(c.Input), verdict(c.Old), verdict(c.New))
		}
		_ = tw.Flush()
		fmt.Fprintln(w, "\nby hook and tool:")
		for _, row := range r.Table() {
			fmt.Fprintf(w, "  %s\n", row.Sentence())
		}
	}
	if nr := r.NotReplayed(); len(nr) > 0 {
		ids := make([]string, 0, len(nr))
		for id := range nr {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Fprintln(w, "\nnot replayed (command, http and prompt hooks answered as they did when captured; --live-hooks runs them):")
		for _, id := range ids {
			fmt.Fprintf(w, "  %s on %d events\n", id, nr[id])
		}
	}
}

// short is an input on one line, cut to 80 characters.
func short(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		return "-"
	case string:
		s = x
	default:
		b, _ := json.Marshal(x)
		s = string(b)
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

func verdict(v Verdict) string {
	s := v.Decision
	if v.HookID != "" {
		s += " by " + v.HookID
	}
	return s
}
