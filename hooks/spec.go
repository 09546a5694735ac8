package hooks

// Spec is one hook entry as an operator writes it under `hooks:`.
// The YAML names are part of hookgate's configuration contract.
type Spec struct {
	ID            string      `yaml:"id"`
	Event         EventName   `yaml:"event"`
	Matcher       string      `yaml:"matcher,omitempty"`
	IfExpr        string      `yaml:"if_expr,omitempty"`
	Handler       HandlerSpec `yaml:"handler"`
	TimeoutMS     int         `yaml:"timeout_ms,omitempty"`
	OnTimeout     string      `yaml:"on_timeout,omitempty"`
	Priority      int         `yaml:"priority,omitempty"`
	Scope         string      `yaml:"scope,omitempty"`
	AllowMutation []string    `yaml:"allow_mutation,omitempty"`
	Mode          string      `yaml:"mode,omitempty"`
	OnBlock       string      `yaml:"on_block,omitempty"`

	// Line is the line of the entry in its file, for error messages.
	Line int `yaml:"-"`
	// Trusted is true for hooks from the operator's own config; tenant
	// files are untrusted and can never rewrite.
	Trusted bool `yaml:"-"`
}

// HandlerSpec configures the handler of a hook. Which keys apply depends on
// Type: script (source | file), command (command, env, format), http (url,
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
}
