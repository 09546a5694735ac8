package hooks

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hookgate/hookgate/hooks/toolclass"
)

// entryCheck validates one concern of a hook entry and records on h what
// it decides. It returns the entry's problems with that concern; the
// checks run in order and all of them run, so that one pass reports every
// problem of the entry.
type entryCheck func(spec *Spec, h *hook, opts *Options) []error

// entryChecks are the checks of every entry but its handler (handler
// kinds check their own keys: handler_kind.go).
var entryChecks = []entryCheck{
	checkID, checkEvent, checkMatcher, checkClasses, checkCondition, checkTimeout,
	checkOnTimeout, checkScope, checkMutation, checkMode, checkOnBlock, checkBreakerKeys, checkDryRun,
}

func one(err error) []error {
	if err == nil {
		return nil
	}
	return []error{err}
}

func checkID(spec *Spec, _ *hook, _ *Options) []error {
	switch {
	case spec.ID == "":
		return one(errors.New("id: required"))
	case !hookIDPattern.MatchString(spec.ID):
		return one(fmt.Errorf("id %q: use letters, digits and _ . : / @ - (at most 128)", spec.ID))
	}
	return nil
}

func checkEvent(spec *Spec, _ *hook, _ *Options) []error {
	if !spec.Event.Valid() {
		return one(fmt.Errorf("event: unknown event %q (want one of %v)", spec.Event, AllEvents))
	}
	return nil
}

// checkMatcher compiles matcher; "*" matches every tool, and beside
// classes still does.
func checkMatcher(spec *Spec, h *hook, _ *Options) []error {
	m := spec.Matcher
	if m == "*" && len(spec.Classes) > 0 {
		h.matcher = regexp.MustCompile(``)
	}
	if m == "" || m == "*" {
		return nil
	}
	var errs []error
	if spec.Event.Valid() && !spec.Event.HasTool() {
		errs = append(errs, fmt.Errorf("matcher: only pre_tool_use and post_tool_use have a tool name to match (event %s)", spec.Event))
	}
	re, err := regexp.Compile(m)
	if err != nil {
		errs = append(errs, fmt.Errorf("matcher: %w", err))
	}
	h.matcher = re
	return errs
}

func checkClasses(spec *Spec, h *hook, _ *Options) []error {
	var errs []error
	if len(spec.Classes) > 0 && spec.Event.Valid() && !spec.Event.HasTool() {
		errs = append(errs, fmt.Errorf("classes: only pre_tool_use and post_tool_use have a tool to classify (event %s)", spec.Event))
	}
	for i, name := range spec.Classes {
		if !toolclass.Known(name) {
			errs = append(errs, fmt.Errorf("classes[%d]: unknown tool class %q (want one of %v)", i, name, toolclass.Classes))
			continue
		}
		if !slices.Contains(h.classes, toolclass.Class(name)) {
			h.classes = append(h.classes, toolclass.Class(name))
		}
	}
	return errs
}

// checkCondition compiles if_expr.
func checkCondition(spec *Spec, h *hook, opts *Options) []error {
	if spec.IfExpr == "" {
		return nil
	}
	c, err := compileCondition(spec.IfExpr, opts.CELCostLimit)
	h.cond = c
	return one(err)
}

// checkTimeout reads timeout_ms; zero leaves the default to the handler.
func checkTimeout(spec *Spec, h *hook, _ *Options) []error {
	switch {
	case spec.TimeoutMS < 0:
		return one(fmt.Errorf("timeout_ms: %d is negative", spec.TimeoutMS))
	case time.Duration(spec.TimeoutMS)*time.Millisecond > MaxTimeout:
		return one(fmt.Errorf("timeout_ms: %d exceeds %s", spec.TimeoutMS, MaxTimeout))
	case spec.TimeoutMS > 0:
		h.timeout = time.Duration(spec.TimeoutMS) * time.Millisecond
	}
	return nil
}

// checkOnTimeout reads on_timeout: a blocking event blocks by default and
// may allow; any other event fails by default and may skip.
func checkOnTimeout(spec *Spec, h *hook, _ *Options) []error {
	if !spec.Event.Valid() {
		return nil
	}
	if spec.Event.Blocking() {
		switch spec.OnTimeout {
		case "", onTimeoutBlock:
		case onTimeoutAllow:
			h.failOpen = true
		default:
			return one(fmt.Errorf("on_timeout: %q for blocking event %s: want block (default) or allow", spec.OnTimeout, spec.Event))
		}
		return nil
	}
	switch spec.OnTimeout {
	case "", onTimeoutFail:
	case onTimeoutSkip:
		h.failOpen = true
	default:
		return one(fmt.Errorf("on_timeout: %q for %s event %s: want fail (default) or skip", spec.OnTimeout, spec.Event.Class(), spec.Event))
	}
	return nil
}

// checkScope reads scope; an untrusted (tenant) hook is never global.
func checkScope(spec *Spec, h *hook, _ *Options) []error {
	switch kind, id, _ := strings.Cut(spec.Scope, ":"); {
	case spec.Scope == "" || spec.Scope == "global":
		if !spec.Trusted {
			return one(errors.New("scope: an untrusted (tenant) hook must be scoped to its tenant or an agent, not global"))
		}
	case kind == "tenant" && id != "":
		h.scopeTenant = id
	case kind == "agent" && id != "":
		h.scopeAgent = id
	default:
		return one(fmt.Errorf("scope: %q: want global, tenant:<id> or agent:<id>", spec.Scope))
	}
	return nil
}

// checkMutation reads allow_mutation, the fields a rewrite may touch.
func checkMutation(spec *Spec, h *hook, _ *Options) []error {
	if !spec.Event.Valid() {
		return nil
	}
	m, errs := parseMutation(spec.AllowMutation, spec.Event)
	h.mutation = m
	return errs
}

// checkMode reads mode, which only pre_response hooks have.
func checkMode(spec *Spec, h *hook, _ *Options) []error {
	switch {
	case spec.Mode == "":
	case spec.Event != PreResponse:
		return one(fmt.Errorf("mode: only pre_response hooks have a mode (event %s)", spec.Event))
	case spec.Mode == string(Append) || spec.Mode == string(Send):
		h.mode = Mode(spec.Mode)
	default:
		return one(fmt.Errorf("mode: %q: want append (default) or send", spec.Mode))
	}
	return nil
}

// checkOnBlock reads on_block, which only blocking events have.
func checkOnBlock(spec *Spec, h *hook, _ *Options) []error {
	switch spec.OnBlock {
	case "":
	case "respond", "retry":
		h.onBlock = spec.OnBlock
		if spec.Event.Valid() && !spec.Event.Blocking() {
			return one(fmt.Errorf("on_block: only blocking events can block (event %s)", spec.Event))
		}
	default:
		return one(fmt.Errorf("on_block: %q: want respond or retry", spec.OnBlock))
	}
	return nil
}

func checkBreakerKeys(spec *Spec, _ *hook, _ *Options) []error {
	return one(checkBreaker(spec))
}
