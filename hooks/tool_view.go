package hooks

import "github.com/hookgate/hookgate/hooks/toolclass"

// typedLine is what the engine knows of a call that types into a terminal
// session (Codex's write_stdin): the session, and the unfinished line it
// held before the call.
type typedLine struct {
	key        toolclass.TerminalKey
	charsField string
	text       string
	truncated  bool
}

// ToolView returns the normalised view of ev's call: ev.Tool when the
// engine filled it in, else the view read from ev alone (a handler called
// outside Dispatch), or nil for a tool of no class.
func (ev *Event) ToolView() *toolclass.View {
	if ev.Tool != nil {
		return ev.Tool
	}
	if !ev.Event.HasTool() {
		return nil
	}
	return toolclass.Read(ev.ToolName, ev.ToolInput, "")
}

// readView reads ev's view from its tool input and, for terminal input,
// the line typed before.
func (ev *Event) readView() *toolclass.View {
	typed := ""
	if ev.typed != nil {
		typed = ev.typed.text
	}
	v := toolclass.Read(ev.ToolName, ev.ToolInput, typed)
	if v != nil && ev.typed != nil {
		chars, _ := ev.ToolInput[ev.typed.charsField].(string)
		v.Truncated = ev.typed.truncated && !toolclass.DiscardsLine(chars)
	}
	return v
}

// viewed returns the event the hooks of ev see: a copy carrying the view
// of its call, or ev itself for an event without a tool of a class. A
// pre_tool_use call that types into a terminal is read together with what
// was typed there before (see commitTyped).
func (e *Engine) viewed(ev *Event) *Event {
	if !ev.Event.HasTool() {
		return ev
	}
	if _, ok := toolclass.ClassOf(ev.ToolName); !ok {
		if ev.Tool == nil {
			return ev
		}
		cp := *ev
		cp.Tool, cp.typed = nil, nil
		return &cp
	}
	cp := *ev
	cp.typed = nil
	if term, field, ok := toolclass.TerminalOf(ev.ToolName, ev.ToolInput); ok && ev.Event == PreToolUse {
		t := &typedLine{key: toolclass.TerminalKey{Session: ev.SessionID, Tenant: ev.Tenant, Terminal: term}, charsField: field}
		t.text, t.truncated = e.terminals.Typed(t.key, ev.ToolCallID)
		cp.typed = t
	}
	cp.Tool = cp.readView()
	return &cp
}

// commitTyped records what an allowed terminal call typed (its final,
// possibly rewritten, input), so that the next call on the same terminal
// is read with it. A blocked call typed nothing.
func (e *Engine) commitTyped(cur *Event, out *Outcome) {
	t := cur.typed
	if t == nil || (out.Decision != Allow && out.Decision != Rewrite) {
		return
	}
	chars, _ := cur.ToolInput[t.charsField].(string)
	e.terminals.Commit(t.key, cur.ToolCallID, t.text, t.truncated, chars)
}
