package hooks

import (
	"reflect"
	"slices"
	"strings"
	"time"
)

// Spec is one hook entry as an operator writes it under `hooks:`.
// The YAML names are part of hookgate's configuration contract.
type Spec struct {
	ID      string    `yaml:"id"`
	Event   EventName `yaml:"event"`
	Matcher string    `yaml:"matcher,omitempty"`
	// Classes matches tools by class (shell, file_write, file_read,
	// web_fetch; see package toolclass), whatever each agent calls them.
	// A hook with both matcher and classes applies when either matches.
	Classes       []string    `yaml:"classes,omitempty" json:",omitempty"`
	IfExpr        string      `yaml:"if_expr,omitempty"`
	Handler       HandlerSpec `yaml:"handler"`
	TimeoutMS     int         `yaml:"timeout_ms,omitempty"`
	OnTimeout     string      `yaml:"on_timeout,omitempty"`
	Priority      int         `yaml:"priority,omitempty"`
	Scope         string      `yaml:"scope,omitempty"`
	AllowMutation []string    `yaml:"allow_mutation,omitempty"`
	Mode          string      `yaml:"mode,omitempty"`
	OnBlock       string      `yaml:"on_block,omitempty"`
	// Breaker tunes the circuit breaker of an http or prompt hook; nil
	// means the defaults (on). Other handler types have no breaker.
	Breaker *BreakerSpec `yaml:"breaker,omitempty" json:",omitempty"`
	// DryRun runs a blocking or contributing hook without enforcing it:
	// it is judged off the request path, on the input it would have seen
	// at its priority, and its verdict is only recorded (would_block,
	// would_rewrite, would_allow, would_ask). See dry_run.go.
	DryRun bool `yaml:"dry_run,omitempty" json:",omitempty"`

	// Line is the line of the entry in its file, for error messages (set
	// by the config loader).
	Line int `yaml:"-"`
	// Origin names the file the entry was declared in (the config or a
	// tenant's hooks file), for error messages. Empty means the config.
	Origin string `yaml:"-"`
	// Trusted is true for hooks from the operator's own config; tenant
	// files are untrusted and can never rewrite.
	Trusted bool `yaml:"-"`
}

// Class is the class of this hook: its event's class, except that a
// post_tool_use hook that may rewrite the tool result (trusted, with
// toolResult in allow_mutation) is Contributing.
func (s *Spec) Class() Class {
	if s.Event == PostToolUse && s.Trusted && slices.Contains(s.AllowMutation, mutationToolResult) {
		return Contributing
	}
	return s.Event.Class()
}

// BreakerSpec is a hook's `breaker:` entry: when its policy server or judge
// counts as down, and for how long calls then fail closed without trying.
// Every zero field means its default.
type BreakerSpec struct {
	// Failures is how many failures in a row (errors, timeouts, junk
	// answers) open the breaker. Zero means DefaultBreakerFailures.
	Failures int `yaml:"failures,omitempty"`
	// Cooldown is how long the breaker stays open before one call is let
	// through as a probe. Zero means DefaultBreakerCooldown.
	Cooldown time.Duration `yaml:"cooldown,omitempty"`
	// Disabled turns the breaker off: every call tries the server and
	// waits up to the hook's timeout.
	Disabled bool `yaml:"disabled,omitempty"`
}

// HandlerSpec configures the handler of a hook. Which keys apply depends on
// Type: script (source | file, max_memory), command (command, env, format), http (url,
// headers, template), prompt (instruction, model, upstream), builtin (name,
// with).
type HandlerSpec struct {
	Type        string            `yaml:"type"`
	Source      string            `yaml:"source,omitempty"`
	File        string            `yaml:"file,omitempty"`
	Command     []string          `yaml:"command,omitempty"`
	Env         map[string]string `yaml:"env,omitempty"`
	Format      string            `yaml:"format,omitempty"`
	URL         string            `yaml:"url,omitempty"`
	Headers     map[string]string `yaml:"headers,omitempty"`
	Template    string            `yaml:"template,omitempty"`
	Instruction string            `yaml:"instruction,omitempty"`
	Model       string            `yaml:"model,omitempty"`
	Upstream    string            `yaml:"upstream,omitempty"`
	Name        string            `yaml:"name,omitempty"`
	With        map[string]any    `yaml:"with,omitempty"`
	// MaxMemory is a script's memory budget per execution ("16MiB"), at
	// most limits.script_max_memory (which applies when it is empty; an
	// empty value leaves the hook's version hash as it was).
	MaxMemory string `yaml:"max_memory,omitempty" json:",omitempty"`
}

// setKeys returns the YAML names of the handler keys that are set.
func (h *HandlerSpec) setKeys() []string {
	var keys []string
	v := reflect.ValueOf(*h)
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := yamlName(f)
		if name == "" || name == "type" {
			continue
		}
		if !v.Field(i).IsZero() {
			keys = append(keys, name)
		}
	}
	return keys
}

func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}
