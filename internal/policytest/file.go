package policytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/hooks"
)

// File is one parsed test file.
type File struct {
	// Path is the file as named on the command line.
	Path string
	// Stubs answer http and prompt hooks, by hook id, for every case that
	// does not give its own.
	Stubs map[string]Stub
	Cases []Case
}

// Case is one test case as written.
type Case struct {
	Name string `yaml:"name"`
	// Line is the case's line in its file.
	Line int `yaml:"-"`

	// Event is the event name (short form), or the whole event as
	// handlers receive it (full form, a mapping).
	Event yaml.Node `yaml:"event"`

	// The short form's fields, named as in the event JSON where they
	// differ only in case.
	Tool     string         `yaml:"tool"`
	Input    map[string]any `yaml:"input"`
	Tenant   string         `yaml:"tenant"`
	Agent    string         `yaml:"agent"`
	Session  string         `yaml:"session"`
	Parent   string         `yaml:"parent_session"`
	User     string         `yaml:"user"`
	Provider string         `yaml:"provider"`
	Model    string         `yaml:"model"`
	Prompt   string         `yaml:"prompt"`
	Response string         `yaml:"response"`
	Result   *string        `yaml:"result"`
	Metadata map[string]any `yaml:"metadata"`

	// Class names a tool class (hooks/toolclass): the case runs once per
	// agent profile that maps the class, with the tool that agent calls
	// it and Command, Path or URL where that tool's input holds it.
	Class   string `yaml:"class"`
	Command string `yaml:"command"`
	Path    string `yaml:"path"`
	URL     string `yaml:"url"`

	// ReadOnly is the read-only switch the case runs under (nil: the
	// tenant's read_only in the configuration, else no switch).
	ReadOnly *bool `yaml:"read_only"`
	// Approval answers an approval hook: approve, reject or timeout.
	Approval string `yaml:"approval"`
	// Stubs answer http and prompt hooks for this case, by hook id; they
	// replace the file's stubs of the same ids.
	Stubs map[string]Stub `yaml:"stub"`

	Expect Expect `yaml:"expect"`
}

// Stub is the canned answer of an http or prompt hook: what the server or
// the judge would have answered (a prompt hook's judge may only allow or
// block).
type Stub struct {
	Decision          hooks.Decision `yaml:"decision" json:"decision"`
	Reason            string         `yaml:"reason" json:"reason"`
	UpdatedInput      map[string]any `yaml:"updatedInput" json:"updatedInput,omitempty"`
	AdditionalContext string         `yaml:"additionalContext" json:"additionalContext,omitempty"`
}

// Expect is what a case must come to. Only Decision is required; every
// other field set is checked too.
type Expect struct {
	// Decision is the chain's verdict: allow, rewrite, block or error (a
	// contributing hook failed); or Ask: an approval hook puts the call to
	// a person, whatever they would answer.
	Decision hooks.Decision
	// Reason matches the block or failure reason.
	Reason *Pattern
	// Hook names the hook that blocked or failed.
	Hook string
	// Input is the rewritten tool input, exactly.
	Input map[string]any
	// Result is the rewritten tool result, exactly.
	Result *string
	// Context matches the injected context (additionalContext joined).
	Context *Pattern
	// Asked says whether an approval hook asked (the case's approval
	// answered it).
	Asked *bool
}

// Pattern matches text: /regex/ (RE2), else a substring.
type Pattern struct {
	Text string
	re   *regexp.Regexp
}

// Match reports whether s matches.
func (p *Pattern) Match(s string) bool {
	if p.re != nil {
		return p.re.MatchString(s)
	}
	return strings.Contains(s, p.Text)
}

func (p *Pattern) String() string {
	if p.re != nil {
		return p.Text
	}
	return strconv.Quote(p.Text)
}

// UnmarshalYAML reads a scalar and compiles it when it is /regex/.
func (p *Pattern) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return lineErr(n, "want a string (a substring, or /regex/)")
	}
	p.Text = n.Value
	if len(n.Value) >= 2 && strings.HasPrefix(n.Value, "/") && strings.HasSuffix(n.Value, "/") {
		re, err := regexp.Compile(n.Value[1 : len(n.Value)-1])
		if err != nil {
			return lineErr(n, "bad regex %s: %v", n.Value, err)
		}
		p.re = re
	}
	return nil
}

// expectKeys are the keys of `expect:` in its mapping form.
var expectKeys = []string{"decision", "reason", "hook", "input", "result", "context", "asked"}

// UnmarshalYAML reads `expect: allow` or `expect: {decision: ..., ...}`.
func (e *Expect) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		e.Decision = hooks.Decision(n.Value)
		return checkDecision(n, e.Decision)
	}
	if err := checkKeys(n, "expect", expectKeys); err != nil {
		return err
	}
	var raw struct {
		Decision hooks.Decision `yaml:"decision"`
		Reason   *Pattern       `yaml:"reason"`
		Hook     string         `yaml:"hook"`
		Input    map[string]any `yaml:"input"`
		Result   *string        `yaml:"result"`
		Context  *Pattern       `yaml:"context"`
		Asked    *bool          `yaml:"asked"`
	}
	if err := n.Decode(&raw); err != nil {
		return err
	}
	*e = Expect{Decision: raw.Decision, Reason: raw.Reason, Hook: raw.Hook, Input: raw.Input, Result: raw.Result, Context: raw.Context, Asked: raw.Asked}
	if e.Decision == "" {
		return lineErr(n, "expect: decision is required")
	}
	return checkDecision(valueOf(n, "decision"), e.Decision)
}

// Ask is the expectation that an approval hook asks a person; the case
// then needs no `approval:` answer.
const Ask hooks.Decision = "ask"

// expectedDecisions are the chain verdicts a case can expect.
var expectedDecisions = []hooks.Decision{hooks.Allow, hooks.Rewrite, hooks.Block, hooks.Error, Ask}

func checkDecision(n *yaml.Node, d hooks.Decision) error {
	if !slices.Contains(expectedDecisions, d) {
		return lineErr(n, "expect: decision %q is not one of allow, rewrite, block, error, ask", d)
	}
	return nil
}

// stubKeys are the keys of a stub.
var stubKeys = []string{"decision", "reason", "updatedInput", "additionalContext"}

// UnmarshalYAML reads a stub strictly.
func (s *Stub) UnmarshalYAML(n *yaml.Node) error {
	if err := checkKeys(n, "stub", stubKeys); err != nil {
		return err
	}
	type plain Stub
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*s = Stub(p)
	switch s.Decision {
	case hooks.Allow, hooks.Block, hooks.Rewrite:
		return nil
	}
	return lineErr(n, "stub: decision %q is not one of allow, block, rewrite", s.Decision)
}

// fileDoc is the top level of a test file.
type fileDoc struct {
	Stubs map[string]Stub `yaml:"stub"`
	Cases []Case          `yaml:"cases"`
}

// Load reads and parses the test file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses a test file strictly: an unknown key, a bad regex or an
// unknown decision is an error naming file:line.
func Parse(name string, data []byte) (*File, error) {
	var doc fileDoc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, located(name, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, located(name, err)
	}
	if len(doc.Cases) == 0 {
		return nil, fmt.Errorf("%s: no cases (write them under `cases:`)", name)
	}
	cases := casesNode(&root)
	var problems []string
	for i := range doc.Cases {
		c := &doc.Cases[i]
		if cases != nil && i < len(cases.Content) {
			c.Line = cases.Content[i].Line
		}
		if c.Name == "" {
			c.Name = fmt.Sprintf("case %d", i+1)
		}
		if err := c.check(); err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %s: %v", name, c.Line, c.Name, err))
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return &File{Path: name, Stubs: doc.Stubs, Cases: doc.Cases}, nil
}

// approvals are the answers a case may give an approval hook.
var approvals = []string{"", "approve", "reject", "timeout"}

// check finds what the decoder cannot: a case that is neither form, or
// both.
func (c *Case) check() error {
	if !slices.Contains(approvals, c.Approval) {
		return fmt.Errorf("approval: %q is not one of approve, reject, timeout", c.Approval)
	}
	if c.Expect.Decision == "" {
		return errors.New("expect: is required (allow, rewrite, block, error or ask)")
	}
	full := c.Event.Kind == yaml.MappingNode
	if full {
		if c.Tool != "" || c.Input != nil || c.Class != "" || c.Prompt != "" || c.Response != "" || c.Result != nil || c.Tenant != "" || c.Agent != "" {
			return errors.New("event: is the full event JSON; give the tool, input, tenant and the rest inside it, not beside it")
		}
		return nil
	}
	if c.Event.Kind != 0 && c.Event.Kind != yaml.ScalarNode {
		return errors.New("event: want an event name or the event JSON as a mapping")
	}
	if c.Class != "" {
		if c.Tool != "" {
			return errors.New("class: and tool: exclude each other (a class case runs every agent's tool of the class)")
		}
		if _, ok := classField[c.Class]; !ok {
			return fmt.Errorf("class: unknown class %q (shell, file_write, file_read, web_fetch)", c.Class)
		}
	}
	if ev := hooks.EventName(c.Event.Value); c.Event.Value != "" && !ev.Valid() {
		return fmt.Errorf("event: unknown event %q", c.Event.Value)
	}
	return nil
}

// casesNode finds the `cases:` sequence, for the cases' lines.
func casesNode(root *yaml.Node) *yaml.Node {
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	return valueOf(root.Content[0], "cases")
}

// valueOf is the value of key in mapping n, or n itself when absent (so
// that an error still has a line).
func valueOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return n
}

// checkKeys refuses a mapping key outside allowed. (A custom
// UnmarshalYAML decodes without the file's KnownFields, so the keys of
// the mappings it reads are checked here.)
func checkKeys(n *yaml.Node, what string, allowed []string) error {
	if n.Kind != yaml.MappingNode {
		return lineErr(n, "%s: want a mapping", what)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(allowed, k.Value) {
			return lineErr(k, "%s: unknown key %q (known: %s)", what, k.Value, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// lineErr is an error at n's line, in yaml's own "line N: " form, so that
// located turns it into file:line like the decoder's errors.
func lineErr(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("line %d: %s", n.Line, fmt.Sprintf(format, args...))
}

var (
	yamlLine     = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)
	unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)
)

// located rewrites the decoder's errors as file:line: message, one a line.
func located(name string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		m = strings.TrimPrefix(m, "yaml: ")
		m = unknownField.ReplaceAllString(m, `unknown key "$1"`)
		if sub := yamlLine.FindStringSubmatch(m); sub != nil {
			m = fmt.Sprintf("%s:%s: %s", name, sub[1], m[len(sub[0]):])
		} else {
			m = name + ": " + m
		}
		out = append(out, m)
	}
	return errors.New(strings.Join(out, "\n"))
}
