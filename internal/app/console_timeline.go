package app

import (
	"context"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/hookgate/hookgate/hooks/builtin"
	"github.com/hookgate/hookgate/proxy"
	"github.com/hookgate/hookgate/store"
)

// timelineDesk tells one session's agent loop for the console: from the
// captured events (audit.capture_events), opened with the audit key, when
// there are any; otherwise from the audit records (hook_executions),
// which hold ids, tools and decisions only.
type timelineDesk struct {
	st *store.Store
	// key opens captured events; nil: only the audit records are read.
	key *store.AuditKey
}

var _ proxy.SessionDesk = timelineDesk{}

// Bounds of one timeline: the newest maxTimeline entries, each text cut
// to timelineText characters.
const (
	maxTimeline  = 500
	timelineText = 4000
)

// Session lists the session's events oldest first. Every text is looked
// at as the approvals page does: one holding what secret_guard takes for
// a credential is withheld. A session outside tenants (when not nil)
// shows nothing.
func (d timelineDesk) Session(ctx context.Context, id string, tenants []string) (any, error) {
	if d.key != nil {
		rows, err := d.st.ListCaptures(ctx, store.CaptureFilter{SessionID: id})
		if err != nil {
			return nil, err
		}
		rows = slices.DeleteFunc(rows, func(r store.Capture) bool {
			return tenants != nil && !slices.Contains(tenants, r.Tenant)
		})
		if len(rows) > maxTimeline {
			rows = rows[len(rows)-maxTimeline:]
		}
		if len(rows) > 0 {
			return map[string]any{"session": id, "source": "captured_events", "events": d.captured(rows)}, nil
		}
	}
	xs, err := d.st.ListExecutions(ctx, store.ExecutionFilter{SessionID: id, Tenants: tenants, Limit: maxTimeline})
	if err != nil {
		return nil, err
	}
	events := make([]map[string]any, 0, len(xs))
	for _, x := range slices.Backward(xs) {
		events = append(events, map[string]any{
			"id": x.ID, "at": x.CreatedAt, "event": x.Event, "tool": x.Tool, "hook": x.HookID,
			"decision": x.Decision, "reason": masked(x.Reason), "tenant": x.Tenant, "agent": x.Agent,
		})
	}
	return map[string]any{"session": id, "source": "hook_executions", "events": events}, nil
}

// captured opens the rows; one that does not open (another key, damage)
// is listed with its plain columns and says so.
func (d timelineDesk) captured(rows []store.Capture) []map[string]any {
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		e := map[string]any{
			"id": r.ID, "at": r.CreatedAt, "event": r.Event, "tool": r.Tool, "hook": r.DecidedBy,
			"decision": r.Decision, "tenant": r.Tenant, "agent": r.Agent,
		}
		var rec CapturedRecord
		plain, err := d.key.OpenCapture(r.ID, r.Sealed)
		if err == nil {
			err = json.Unmarshal(plain, &rec)
		}
		if err != nil || rec.Event == nil {
			e["sealed"] = "does not open with this audit key"
			out = append(out, e)
			continue
		}
		ev := rec.Event
		e["reason"] = masked(rec.Outcome.Reason)
		if ev.Prompt != "" {
			e["prompt"] = masked(ev.Prompt)
		}
		if ev.ToolCallID != "" {
			e["call_id"] = ev.ToolCallID
		}
		if len(ev.ToolInput) > 0 {
			b, _ := json.Marshal(ev.ToolInput) // decoded JSON marshals again
			e["arguments"] = masked(string(b))
		}
		if ev.ToolResult != nil {
			e["result"] = masked(*ev.ToolResult)
		}
		if ev.Response != "" {
			e["response"] = masked(ev.Response)
		}
		if ev.Model != "" {
			e["model"] = ev.Model
		}
		out = append(out, e)
	}
	return out
}

// masked is s cut to timelineText characters, or a note in its place
// when it holds what looks like a credential.
func masked(s string) string {
	if kind := builtin.SecretIn(s); kind != "" {
		return "(withheld: this holds what looks like a " + kind + ")"
	}
	if utf8.RuneCountInString(s) <= timelineText {
		return s
	}
	n := 0
	for i := range s {
		if n == timelineText {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// timelineKey is the audit key that opens captured events, if the
// configuration has one.
func timelineKey(key string) *store.AuditKey {
	if key == "" {
		return nil
	}
	k, err := store.ParseAuditKey(key)
	if err != nil {
		return nil // NewAuditRecorder refuses such a key before the console is built
	}
	return k
}
