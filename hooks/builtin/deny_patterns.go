package builtin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/toolclass"
)

// DenyPatternsName is the registry name of the deny_patterns built-in.
const DenyPatternsName = "deny_patterns"

// maxScanBytes bounds how much of one string value is scanned. RE2 is
// linear, but a 50 MB argument should not cost 50 MB of matching per
// pattern; a value longer than this is blocked outright (fail closed)
// rather than scanned in part.
const maxScanBytes = 1 << 20

// denyParams are deny_patterns' `with:` parameters.
//
//	with:
//	  defaults: [shell, sql]          # shipped sets (see DefaultPatternSets)
//	  patterns:                       # own patterns: a regex, or {label, regex}
//	    - "curl[^|]*\\|\\s*(ba)?sh"
//	    - {label: prod-db, regex: "(?i)prod[-_]db"}
//	  fields: [command, args]         # toolInput paths (dotted), or tool.command; default: every string value
//
// For a call of a shell-class tool (package toolclass) the normalised
// command (tool.command: argv joined, a terminal's completed line) is
// scanned too, unless fields are set and do not name tool.command. Such a
// command that hookgate cannot read whole (terminal input with control
// characters it does not replay, or a line longer than it keeps) is
// blocked unscanned.
type denyParams struct {
	Defaults []string       `json:"defaults"`
	Patterns []patternParam `json:"patterns"`
	Fields   []string       `json:"fields"`
}

// patternParam accepts a bare regex string or {label, regex}.
type patternParam struct {
	Label string `json:"label"`
	Regex string `json:"regex"`
}

// UnmarshalJSON accepts "regex" or {"label": ..., "regex": ...}.
func (p *patternParam) UnmarshalJSON(b []byte) error {
	var s string
	if err := jsonUnmarshal(b, &s); err == nil {
		p.Regex = s
		return nil
	}
	type plain patternParam
	return jsonStrict(b, (*plain)(p))
}

// Pattern is a labelled regular expression. The label, never the matched
// text, is what a block reason names: the input may hold secrets.
type Pattern struct {
	Label string
	Re    *regexp.Regexp
}

// denyPatterns blocks a tool call when a pattern matches a chosen field.
type denyPatterns struct {
	patterns []Pattern
	fields   [][]string
	// all: no fields were set, so every string value is scanned.
	all bool
	// command: scan a shell-class call's normalised command (fields unset,
	// or naming tool.command).
	command bool
	// interactive: block a call that starts a shell reading its commands
	// from the session (a set with InteractiveShellRule).
	interactive bool
}

// toolCommandField names the normalised shell command in fields.
const toolCommandField = "tool.command"

// NewDenyPatterns is the factory of deny_patterns. It accepts pre_tool_use
// hooks only (it judges tool input).
func NewDenyPatterns(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if cfg.Event != hooks.PreToolUse {
		return nil, fmt.Errorf("deny_patterns judges tool input: use it on pre_tool_use, not %s", cfg.Event)
	}
	var p denyParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	d := &denyPatterns{}
	var errs []error
	for _, set := range p.Defaults {
		ps, ok := DefaultPatternSets[set]
		if !ok {
			errs = append(errs, fmt.Errorf("with.defaults: unknown set %q (known: %s)", set, strings.Join(slices.Sorted(maps.Keys(DefaultPatternSets)), ", ")))
			continue
		}
		d.patterns = append(d.patterns, ps...)
		d.interactive = d.interactive || blocksInteractiveShell[set]
	}
	for i, pp := range p.Patterns {
		if pp.Regex == "" {
			errs = append(errs, fmt.Errorf("with.patterns[%d]: empty regex", i))
			continue
		}
		re, err := regexp.Compile(pp.Regex)
		if err != nil {
			errs = append(errs, fmt.Errorf("with.patterns[%d]: %w", i, err))
			continue
		}
		label := pp.Label
		if label == "" {
			label = fmt.Sprintf("patterns[%d]", i)
		}
		d.patterns = append(d.patterns, Pattern{Label: label, Re: re})
	}
	d.all = len(p.Fields) == 0
	d.command = d.all
	for i, f := range p.Fields {
		if f == toolCommandField {
			d.command = true
			continue
		}
		f = strings.TrimPrefix(f, "toolInput.")
		path := strings.Split(f, ".")
		if slices.Contains(path, "") {
			errs = append(errs, fmt.Errorf("with.fields[%d]: %q is not a dotted path", i, p.Fields[i]))
			continue
		}
		d.fields = append(d.fields, path)
	}
	if len(d.patterns) == 0 && !d.interactive && len(errs) == 0 {
		errs = append(errs, errors.New("with: no patterns (set defaults or patterns)"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return d, nil
}

// Handle blocks when a pattern matches.
func (d *denyPatterns) Handle(_ context.Context, ev *hooks.Event) (hooks.Result, error) {
	var hit *Pattern
	tooLong := false
	visit := func(s string) bool {
		if len(s) > maxScanBytes {
			tooLong = true
			return false
		}
		for i := range d.patterns {
			if d.patterns[i].Re.MatchString(s) {
				hit = &d.patterns[i]
				return false
			}
		}
		return true
	}
	if view := ev.ToolView(); view != nil && view.Class == toolclass.Shell {
		if d.interactive && view.Interactive {
			return hooks.Result{Decision: hooks.Block, Reason: fmt.Sprintf("matched deny rule %q: the call starts a shell that reads its commands from the session", InteractiveShellRule)}, nil
		}
		if d.command {
			switch {
			case view.Opaque:
				return hooks.Result{Decision: hooks.Block, Reason: "terminal input with control characters hookgate does not replay (cursor movement, completion, history): not judged, blocked"}, nil
			case view.Truncated:
				return hooks.Result{Decision: hooks.Block, Reason: "a line typed into a terminal that hookgate could not keep whole (too long, or forgotten under load): not judged, blocked; type ^C or ^U first to discard it"}, nil
			}
			visit(view.Command)
		}
	}
	if hit == nil && !tooLong {
		if d.all {
			walkStrings(ev.ToolInput, visit)
		} else {
			for _, path := range d.fields {
				v, ok := lookup(ev.ToolInput, path)
				if ok && !walkStrings(v, visit) {
					break
				}
			}
		}
	}
	switch {
	case tooLong:
		return hooks.Result{Decision: hooks.Block, Reason: fmt.Sprintf("tool input value longer than %d bytes: not scanned, blocked", maxScanBytes)}, nil
	case hit != nil:
		return hooks.Result{Decision: hooks.Block, Reason: fmt.Sprintf("matched deny pattern %q", hit.Label)}, nil
	}
	return hooks.Result{Decision: hooks.Allow}, nil
}

// walkStrings calls visit on every string in v (maps, in key order, and
// arrays, recursively) until visit returns false; it reports whether the
// walk ran to the end.
func walkStrings(v any, visit func(string) bool) bool {
	switch x := v.(type) {
	case string:
		return visit(x)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if !walkStrings(x[k], visit) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !walkStrings(e, visit) {
				return false
			}
		}
	case []string:
		for _, e := range x {
			if !visit(e) {
				return false
			}
		}
	}
	return true
}

// lookup follows a dotted path of map keys.
func lookup(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}
