package policytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/toolclass"
)

// run is one event a case dispatches: the case itself, or one agent's
// sub-case of a class case.
type run struct {
	c *Case
	// Label names the sub-case ("claude-code Bash"); empty for a plain case.
	Label string
	Event *hooks.Event
}

// classField is the short-form key each class's value is given in.
var classField = map[string]string{
	string(toolclass.Shell):     "command",
	string(toolclass.FileWrite): "path",
	string(toolclass.FileRead):  "path",
	string(toolclass.WebFetch):  "url",
}

// runs turns a case into the events it dispatches. id numbers the events
// so that stand-ins find the case an event belongs to.
func (c *Case) runs(nextID func() string) ([]run, error) {
	if c.Event.Kind == yaml.MappingNode {
		ev, err := c.fullEvent()
		if err != nil {
			return nil, err
		}
		ev.EventID = nextID()
		return []run{{c: c, Event: ev}}, nil
	}
	if c.Class == "" {
		ev, err := c.shortEvent(c.Tool, c.Input)
		if err != nil {
			return nil, err
		}
		ev.EventID = nextID()
		return []run{{c: c, Event: ev}}, nil
	}
	var out []run
	for _, p := range classProfiles(toolclass.Class(c.Class)) {
		input, err := p.input(c)
		if err != nil {
			return nil, err
		}
		for k, v := range c.Input {
			input[k] = v
		}
		ev, err := c.shortEvent(p.Tool, input)
		if err != nil {
			return nil, err
		}
		ev.EventID = nextID()
		out = append(out, run{c: c, Label: p.Agent + " " + p.Tool, Event: ev})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("class %s: no agent profile maps it", c.Class)
	}
	return out, nil
}

// fullEvent reads the event as handlers receive it; an unknown member is
// refused, as the YAML's unknown keys are.
func (c *Case) fullEvent() (*hooks.Event, error) {
	var m map[string]any
	if err := c.Event.Decode(&m); err != nil {
		return nil, fmt.Errorf("event: %w", err)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("event: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var ev hooks.Event
	if err := dec.Decode(&ev); err != nil {
		return nil, fmt.Errorf("event (line %d): %w", c.Event.Line, err)
	}
	if !ev.Event.Valid() {
		return nil, fmt.Errorf("event (line %d): unknown event %q", c.Event.Line, ev.Event)
	}
	return &ev, nil
}

// shortEvent builds the event of the short form. Its event is the one
// named, else pre_tool_use for a tool, user_prompt_submit for a prompt,
// pre_response for a response. Input and metadata go through JSON, so
// that a hook sees numbers as it would from traffic (float64).
func (c *Case) shortEvent(tool string, input map[string]any) (*hooks.Event, error) {
	name := hooks.EventName(c.Event.Value)
	if name == "" {
		switch {
		case tool != "":
			name = hooks.PreToolUse
		case c.Prompt != "":
			name = hooks.UserPromptSubmit
		case c.Response != "":
			name = hooks.PreResponse
		default:
			return nil, errors.New("event: name the event (or give tool:, prompt: or response:)")
		}
	}
	if name.HasTool() && tool == "" {
		return nil, fmt.Errorf("%s: tool: (or class:) is required", name)
	}
	in, err := viaJSON(input)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	meta, err := viaJSON(c.Metadata)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	session := c.Session
	if session == "" {
		session = "policytest"
	}
	return &hooks.Event{
		Event: name, SessionID: session, ParentSessionID: c.Parent,
		Tenant: c.Tenant, Agent: c.Agent, User: c.User, Provider: c.Provider, Model: c.Model,
		ToolName: tool, ToolInput: in, ToolResult: c.Result,
		Prompt: c.Prompt, Response: c.Response, Metadata: meta,
	}, nil
}

// viaJSON round-trips m through JSON (nil stays nil).
func viaJSON(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// profile is one agent's tool of a class that a class case runs.
type profile struct{ toolclass.Entry }

// classProfiles picks, per agent in the mapping's order, the first tool of
// class cl whose input a case can fill from one value (a terminal's
// write_stdin, which needs a session, is skipped).
func classProfiles(cl toolclass.Class) []profile {
	var out []profile
	seen := map[string]bool{}
	for _, e := range toolclass.Entries {
		if e.Class != cl || seen[e.Agent] || e.Shape == toolclass.Stdin {
			continue
		}
		seen[e.Agent] = true
		out = append(out, profile{e})
	}
	return out
}

// input is the tool input that carries the case's command, path or URL in
// the shape this agent's tool reads it.
func (p profile) input(c *Case) (map[string]any, error) {
	key := classField[string(p.Class)]
	val := map[string]string{"command": c.Command, "path": c.Path, "url": c.URL}[key]
	if val == "" {
		return nil, fmt.Errorf("class %s: %s: is required", p.Class, key)
	}
	var v any = val
	switch p.Shape {
	case toolclass.Argv:
		v = []any{"bash", "-lc", val}
	case toolclass.Patch:
		v = "*** Begin Patch\n*** Update File: " + val + "\n@@\n-old\n+new\n*** End Patch\n"
	case toolclass.URLsInText:
		v = "Fetch " + val + " and summarise it."
	}
	return map[string]any{p.Field: v}, nil
}
