package builtin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/toolclass"
)

// ReadOnlyGuardName is the registry name of the readonly_guard built-in.
const ReadOnlyGuardName = "readonly_guard"

// readonlyParams are readonly_guard's `with:` parameters.
//
//	with:
//	  tools: [write_file, deploy]       # tools that write, by name
//	  pattern: "^(write|delete|drop)_"  # and/or by an RE2 over the tool name
//	  classes: [file_write]             # and/or by tool class (the default: file_write; [] for none)
//	  read_only: false                  # the default while no run-time switch is set
//
// Every agent's file-writing tool (package toolclass: Claude Code's Write
// and Edit, Codex's apply_patch, Gemini CLI's write_file, opencode's and
// pi's write and edit) is a write unless classes says otherwise; the
// block names the paths the call would write.
type readonlyParams struct {
	Tools    []string `json:"tools"`
	Pattern  string   `json:"pattern"`
	Classes  []string `json:"classes"`
	ReadOnly bool     `json:"read_only"`
}

// readonlyGuard blocks the tools that write while read-only is on.
//
// Whether it is on, for an event of tenant T:
//   - the organisation's run-time switch (hooks.ReadOnlyState asked for
//     ""), when it is set and on, makes every tenant read-only;
//   - otherwise T's run-time switch, when it is set, decides (on or off);
//   - otherwise the configured read_only does.
//
// For an event without a tenant (no tenants configured) the organisation's
// switch, when set, decides, and read_only otherwise. A switch thrown at
// run time thus wins over the configuration until it is cleared.
type readonlyGuard struct {
	tools   []string
	classes []toolclass.Class
	pattern *regexp.Regexp
	def     bool
	state   hooks.ReadOnlyState // nil: only the default
}

// NewReadOnlyGuard is the factory of readonly_guard. It accepts
// pre_tool_use hooks only. The run-time switch is Deps.ReadOnly.
func NewReadOnlyGuard(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if err := onlyOn(ReadOnlyGuardName, cfg, hooks.PreToolUse, "judges tool calls"); err != nil {
		return nil, err
	}
	var p readonlyParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	g := &readonlyGuard{tools: p.Tools, def: p.ReadOnly, state: cfg.Deps.ReadOnly}
	var errs []error
	if slices.Contains(p.Tools, "") {
		errs = append(errs, errors.New("with.tools: empty tool name"))
	}
	if p.Pattern != "" {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			errs = append(errs, fmt.Errorf("with.pattern: %w", err))
		}
		g.pattern = re
	}
	for i, c := range p.Classes {
		if !toolclass.Known(c) {
			errs = append(errs, fmt.Errorf("with.classes[%d]: unknown tool class %q (want one of %v)", i, c, toolclass.Classes))
		}
		g.classes = append(g.classes, toolclass.Class(c))
	}
	if p.Classes == nil {
		g.classes = []toolclass.Class{toolclass.FileWrite}
	}
	if len(p.Tools) == 0 && p.Pattern == "" && p.Classes == nil {
		errs = append(errs, errors.New("with: name the tools that write (tools, pattern and/or classes)"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return g, nil
}

// writes reports whether the call is one that writes: by name, pattern
// or class.
func (g *readonlyGuard) writes(ev *hooks.Event) bool {
	if slices.Contains(g.tools, ev.ToolName) || (g.pattern != nil && g.pattern.MatchString(ev.ToolName)) {
		return true
	}
	v := ev.ToolView()
	if v == nil {
		return false
	}
	// A shell call that applies a patch (Codex's apply_patch run as a
	// command) writes files as a file_write tool does.
	return slices.Contains(g.classes, v.Class) ||
		v.Class == toolclass.Shell && len(v.Paths) > 0 && slices.Contains(g.classes, toolclass.FileWrite)
}

// Handle blocks a writing tool while its tenant or the organisation is
// read-only. The state is asked only for writing tools; an error asking
// it fails the hook (closed, unless the entry says on_timeout: allow).
func (g *readonlyGuard) Handle(ctx context.Context, ev *hooks.Event) (hooks.Result, error) {
	if !g.writes(ev) {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	on, who, err := g.readOnly(ctx, ev.Tenant)
	if err != nil {
		return hooks.Result{}, fmt.Errorf("readonly_guard: read-only state: %w", err)
	}
	if !on {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	reason := fmt.Sprintf("read-only: tool %q writes, and %s", ev.ToolName, who)
	if v := ev.ToolView(); v != nil && len(v.Paths) > 0 {
		reason = fmt.Sprintf("read-only: tool %q writes %s, and %s", ev.ToolName, strings.Join(v.Paths, ", "), who)
	}
	return hooks.Result{Decision: hooks.Block, Reason: reason}, nil
}

// readOnly resolves the switches (see readonlyGuard). who says which one
// decided, for the reason.
func (g *readonlyGuard) readOnly(ctx context.Context, tenant string) (on bool, who string, err error) {
	org, tenantLabel := "the organisation is read-only", "tenant "+strconv.Quote(tenant)+" is read-only"
	if g.state == nil {
		if tenant == "" {
			return g.def, org + " (configuration)", nil
		}
		return g.def, tenantLabel + " (configuration)", nil
	}
	orgOn, orgSet, err := g.state.ReadOnly(ctx, "")
	if err != nil {
		return false, "", fmt.Errorf("organisation: %w", err)
	}
	if tenant == "" {
		if orgSet {
			return orgOn, org + " (switched at run time)", nil
		}
		return g.def, org + " (configuration)", nil
	}
	if orgSet && orgOn {
		return true, org + " (switched at run time)", nil
	}
	tOn, tSet, err := g.state.ReadOnly(ctx, tenant)
	if err != nil {
		return false, "", fmt.Errorf("tenant %q: %w", tenant, err)
	}
	if tSet {
		return tOn, tenantLabel + " (switched at run time)", nil
	}
	return g.def, tenantLabel + " (configuration)", nil
}
