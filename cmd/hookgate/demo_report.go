package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// hookRun names one hook at one event; hookDecisions counts its decisions.
type hookRun struct{ hook, event string }

// hookDecisions reads hookgate_hook_decisions_total: for each hook and
// event, how many times it decided each way.
func hookDecisions(g prometheus.Gatherer) map[hookRun]map[string]float64 {
	out := map[hookRun]map[string]float64{}
	mfs, _ := g.Gather()
	for _, mf := range mfs {
		if mf.GetName() != "hookgate_hook_decisions_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var r hookRun
			var decision string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "hook":
					r.hook = l.GetValue()
				case "event":
					r.event = l.GetValue()
				case "decision":
					decision = l.GetValue()
				}
			}
			if out[r] == nil {
				out[r] = map[string]float64{}
			}
			out[r][decision] = m.GetCounter().GetValue()
		}
	}
	return out
}

// decisionLines says, hook by hook, what hookgate's hooks did between two
// readings, in words: "blocked 1 call", "added the session context".
func decisionLines(before, after map[hookRun]map[string]float64) []string {
	var lines []string
	for r, ds := range after {
		var did []string
		for _, d := range []string{"allow", "rewrite", "block", "error", "timeout"} {
			if n := int(ds[d] - before[r][d]); n > 0 {
				did = append(did, describeDecision(r.event, d, n))
			}
		}
		if len(did) > 0 {
			lines = append(lines, fmt.Sprintf("%-20s %-14s %s", r.hook, r.event, strings.Join(did, ", ")))
		}
	}
	sort.Strings(lines)
	return lines
}

// describeDecision puts n decisions d of a hook at event in words. What an
// allowing session_start or pre_response hook did is what the demo's
// policy has them do: add context, append a disclaimer.
func describeDecision(event, d string, n int) string {
	calls := "call"
	if n > 1 {
		calls = "calls"
	}
	switch {
	case event == "pre_tool_use" && d == "allow":
		return fmt.Sprintf("allowed %d %s", n, calls)
	case event == "pre_tool_use" && d == "block":
		return fmt.Sprintf("blocked %d %s", n, calls)
	case event == "pre_tool_use" && d == "rewrite":
		return fmt.Sprintf("rewrote %d %s", n, calls)
	case event == "session_start" && d == "allow":
		return "added the session context (once per session; hookgate puts it into every request)"
	case event == "pre_response" && d == "allow":
		return "appended its text to the final answer"
	}
	return fmt.Sprintf("%s (%d times)", d, n)
}

// callFate says what became of a call the model asked for, from what the
// agent received: the same call, a rewritten one, or none.
func callFate(asked mockupstream.ToolCall, received []goopenai.ToolCall) string {
	for _, c := range received {
		if c.ID != asked.ID {
			continue
		}
		if c.Function.Name == asked.Name && c.Function.Arguments == asked.Arguments {
			return "allowed"
		}
		return "rewritten"
	}
	return "blocked"
}
