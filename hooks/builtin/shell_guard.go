package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/shell"
	"github.com/hookgate/hookgate/hooks/toolclass"
)

// ShellGuardName is the registry name of the shell_guard built-in.
const ShellGuardName = "shell_guard"

// shellGuardParams are shell_guard's `with:` parameters.
//
//	with:
//	  dialect: bash                   # or posix
//	  protected: [default, /data]     # replaces the shipped paths; "default" keeps them
//	  workspace: /work/repo           # protected too
//	  sets: [default, git, cloud]     # shipped rule sets; default: [default]
//	  rules:                          # the operator's own, same form
//	    - {label: no-drop, commands: [dropdb], targets: any}
//	    - {label: helm-uninstall, commands: [helm], subcommands: [uninstall, delete]}
//	    - {label: rsync-delete, commands: [rsync], flags: ["--delete|--delete-after"], targets: protected}
//	  on_unresolvable: block          # or allow, or per kind:
//	                                  # {pipe_to_shell: allow, "*": block}
//
// It judges the normalised command of every shell-class call (package
// toolclass): a terminal's write_stdin call is judged on the lines it
// completes.
type shellGuardParams struct {
	Dialect        string         `json:"dialect"`
	Protected      []string       `json:"protected"`
	Workspace      string         `json:"workspace"`
	Sets           []string       `json:"sets"`
	Rules          []shellRule    `json:"rules"`
	OnUnresolvable onUnresolvable `json:"on_unresolvable"`
}

// shellRule is one operator rule as written in YAML.
type shellRule struct {
	Label       string      `json:"label"`
	Commands    []string    `json:"commands"`
	Subcommands []string    `json:"subcommands"`
	Flags       []flagParam `json:"flags"`
	Targets     string      `json:"targets"`
	Branches    []string    `json:"branches"`
	Redirects   bool        `json:"redirects"`
}

// flagParam is one required flag in all its spellings: "-r|-R|--recursive"
// or [-r, -R, --recursive].
type flagParam []string

// UnmarshalJSON accepts "a|b" or a list of spellings.
func (f *flagParam) UnmarshalJSON(b []byte) error {
	var s string
	if err := jsonUnmarshal(b, &s); err == nil {
		*f = strings.Split(s, "|")
		return nil
	}
	var l []string
	if err := jsonUnmarshal(b, &l); err != nil {
		return errors.New(`a flag is "-x|--name" or a list of its spellings`)
	}
	*f = l
	return nil
}

// onUnresolvable is "block", "allow", or a map of kind to either.
type onUnresolvable map[string]string

// UnmarshalJSON accepts one word for every kind, or a map per kind.
func (o *onUnresolvable) UnmarshalJSON(b []byte) error {
	var s string
	if err := jsonUnmarshal(b, &s); err == nil {
		*o = onUnresolvable{"*": s}
		return nil
	}
	var m map[string]string
	if err := jsonStrict(b, &m); err != nil {
		return errors.New("on_unresolvable is block, allow, or a map of kind to block or allow")
	}
	*o = m
	return nil
}

// shellGuard judges shell-class calls with a shell.Guard.
type shellGuard struct {
	g *shell.Guard
}

// NewShellGuard is the factory of shell_guard. It accepts pre_tool_use
// hooks only.
func NewShellGuard(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if err := onlyOn(ShellGuardName, cfg, hooks.PreToolUse, "judges shell commands"); err != nil {
		return nil, err
	}
	var p shellGuardParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	gc := shell.GuardConfig{Workspace: p.Workspace, Sets: p.Sets, OnUnresolvable: p.OnUnresolvable}
	var errs []error
	switch p.Dialect {
	case "", "bash":
	case "posix", "sh":
		gc.Dialect = shell.POSIX
	default:
		errs = append(errs, fmt.Errorf("with.dialect: %q is neither bash nor posix", p.Dialect))
	}
	if p.Protected != nil {
		gc.Protected = []string{}
		for _, path := range p.Protected {
			if path == "default" {
				gc.Protected = append(gc.Protected, shell.DefaultProtected...)
				continue
			}
			gc.Protected = append(gc.Protected, path)
		}
	}
	for _, r := range p.Rules {
		rule := shell.Rule{Label: r.Label, Commands: r.Commands, Subcommands: r.Subcommands, Targets: r.Targets, Branches: r.Branches, Redirects: r.Redirects}
		for _, f := range r.Flags {
			rule.Flags = append(rule.Flags, slices.Clone([]string(f)))
		}
		gc.Rules = append(gc.Rules, rule)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	g, err := shell.NewGuard(gc)
	if err != nil {
		return nil, fmt.Errorf("with: %w", err)
	}
	return &shellGuard{g: g}, nil
}

// Handle judges the call's command. A call of no shell class is allowed:
// it runs no shell.
func (s *shellGuard) Handle(_ context.Context, ev *hooks.Event) (hooks.Result, error) {
	view := ev.ToolView()
	if view == nil || view.Class != toolclass.Shell {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	switch {
	case view.Opaque:
		return hooks.Result{Decision: hooks.Block, Reason: "terminal input with control characters hookgate does not replay (cursor movement, completion, history): not judged, blocked"}, nil
	case view.Truncated:
		return hooks.Result{Decision: hooks.Block, Reason: "a line typed into a terminal that hookgate could not keep whole (too long, or forgotten under load): not judged, blocked; type ^C or ^U first to discard it"}, nil
	}
	src := view.Command
	if _, field, ok := toolclass.TerminalOf(ev.ToolName, ev.ToolInput); ok {
		src = completedLines(src, ev.ToolInput[field])
	}
	if strings.TrimSpace(src) == "" {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	v := s.g.Judge(src)
	switch v.Decision {
	case shell.Block:
		return hooks.Result{Decision: hooks.Block, Reason: fmt.Sprintf("matched shell rule %q: %s", v.Rule, maskedReason(v.Reason))}, nil
	case shell.Unresolved:
		return hooks.Result{Decision: hooks.Block, Reason: fmt.Sprintf("shell command not judged statically (%s): %s", v.Rule, maskedReason(v.Reason))}, nil
	}
	return hooks.Result{Decision: hooks.Allow}, nil
}

// reasonSecrets is secret_guard with its default kinds, for masking
// reasons.
var reasonSecrets = sync.OnceValue(func() *secretGuard {
	h, err := NewSecretGuard(hooks.BuiltinConfig{HookID: ShellGuardName, Event: hooks.PreToolUse})
	if err != nil {
		panic("shell_guard: default secret_guard: " + err.Error())
	}
	return h.(*secretGuard)
})

// maskedReason is a verdict's reason, or, should secret_guard find a
// secret in it (a reason names commands, flags and protected targets,
// and a flag can carry a password), a reason that withholds its detail.
func maskedReason(r string) string {
	if k := reasonSecrets().findSecret(r); k != nil {
		return "details withheld: they hold what looks like a " + k.name
	}
	return r
}

// completedLines keeps, of a terminal's line(s), those this call
// completes: the last line runs only once a later call ends it, and is
// judged then, whole.
func completedLines(command string, chars any) string {
	c, _ := chars.(string)
	if strings.HasSuffix(c, "\n") || strings.HasSuffix(c, "\r") {
		return command
	}
	i := strings.LastIndexAny(command, "\n")
	if i < 0 {
		return ""
	}
	return command[:i]
}

// SecretIn names the kind of the first credential secret_guard, with its
// default kinds, finds in s; "" when it finds none. The approval desk
// uses it to withhold arguments from approvers' screens.
func SecretIn(s string) string {
	if k := reasonSecrets().findSecret(s); k != nil {
		return k.name
	}
	return ""
}
