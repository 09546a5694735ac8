package builtin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/toolclass"
)

// SecretGuardName is the registry name of the secret_guard built-in.
const SecretGuardName = "secret_guard"

// DefaultSecretMaxBytes is how many bytes of tool input (string values and
// map keys together) secret_guard scans when max_bytes is not set. Input
// beyond it is blocked unscanned: fail closed.
const DefaultSecretMaxBytes = 1 << 20

// secretParams are secret_guard's `with:` parameters.
//
//	with:
//	  kinds: [aws_access_key_id, private_key]  # default: every kind but generic_assignment
//	  fields: [command, env]                   # toolInput paths (dotted); default: all of it
//	  allow: ["^AKIAIOSFODNN7EXAMPLE$"]        # regexes over a found secret: matches are let through
//	  max_bytes: 1048576                       # scanned at most; larger input is blocked
type secretParams struct {
	Kinds    []string `json:"kinds"`
	Fields   []string `json:"fields"`
	Allow    []string `json:"allow"`
	MaxBytes *int     `json:"max_bytes"`
}

// secretGuard blocks tool calls whose input carries a credential.
type secretGuard struct {
	kinds    []*secretKind
	keyed    []*secretKind // the kinds with keyRe, in order
	fields   [][]string    // nil: all of toolInput
	allow    []*regexp.Regexp
	maxBytes int
	// hintTable finds the enabled kinds' hints in one pass.
	hintTable *hintTable
}

// NewSecretGuard is the factory of secret_guard. It accepts pre_tool_use
// hooks only (it judges tool input).
func NewSecretGuard(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if err := onlyOn(SecretGuardName, cfg, hooks.PreToolUse, "judges tool input"); err != nil {
		return nil, err
	}
	var p secretParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	g := &secretGuard{maxBytes: DefaultSecretMaxBytes}
	var errs []error
	if p.Kinds == nil {
		for _, k := range secretKinds {
			if k.byDefault {
				g.kinds = append(g.kinds, k)
			}
		}
	} else {
		chosen := map[string]bool{}
		for i, name := range p.Kinds {
			if secretKindByName(name) == nil {
				errs = append(errs, fmt.Errorf("with.kinds[%d]: unknown kind %q (known: %s)", i, name, strings.Join(SecretKinds(), ", ")))
			}
			chosen[name] = true
		}
		// Keep the catalogue's order whatever the entry's order: specific
		// kinds are tried before general ones.
		for _, k := range secretKinds {
			if chosen[k.name] {
				g.kinds = append(g.kinds, k)
			}
		}
		if len(p.Kinds) == 0 {
			errs = append(errs, errors.New("with.kinds: empty (omit it for the default kinds)"))
		}
	}
	for _, k := range g.kinds {
		if k.keyRe != nil {
			g.keyed = append(g.keyed, k)
		}
	}
	for i, f := range p.Fields {
		path := strings.Split(strings.TrimPrefix(f, "toolInput."), ".")
		if slices.Contains(path, "") {
			errs = append(errs, fmt.Errorf("with.fields[%d]: %q is not a dotted path", i, f))
			continue
		}
		g.fields = append(g.fields, path)
	}
	for i, a := range p.Allow {
		re, err := regexp.Compile(a)
		if err != nil {
			errs = append(errs, fmt.Errorf("with.allow[%d]: %w", i, err))
			continue
		}
		g.allow = append(g.allow, re)
	}
	if p.MaxBytes != nil {
		if *p.MaxBytes <= 0 {
			errs = append(errs, fmt.Errorf("with.max_bytes: %d is not positive", *p.MaxBytes))
		}
		g.maxBytes = *p.MaxBytes
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	g.hintTable = newHintTable(g.kinds)
	return g, nil
}

// SecretKinds lists the kinds secret_guard knows, in catalogue order: of
// two kinds found at one place, the earlier one is reported.
func SecretKinds() []string {
	names := make([]string, len(secretKinds))
	for i, k := range secretKinds {
		names[i] = k.name
	}
	return names
}

// Handle blocks the first credential found, naming its kind and where it
// was, never the credential.
//
// Clean input, the common case, is walked once in map order, without
// tracking where the walk is, which costs no allocation; when something is
// found, the input is walked again, map keys sorted and path tracked, so
// that the reason says where and is the same on every resend.
func (g *secretGuard) Handle(_ context.Context, ev *hooks.Event) (hooks.Result, error) {
	s := secretScan{g: g}
	if s.run(ev.ToolInput); s.done() {
		s = secretScan{g: g, report: true}
		s.run(ev.ToolInput)
	}
	if !s.done() && g.fields == nil {
		s.command(ev)
	}
	switch {
	case s.tooBig:
		return hooks.Result{Decision: hooks.Block, Reason: fmt.Sprintf("tool input larger than %d bytes: not scanned for secrets, blocked", g.maxBytes)}, nil
	case s.kind != "":
		return hooks.Result{Decision: hooks.Block, Reason: fmt.Sprintf("tool input carries a credential (%s) in %s: blocked; pass a reference (an environment variable's name, a secret manager's path) instead", s.kind, s.where)}, nil
	}
	return hooks.Result{Decision: hooks.Allow}, nil
}

// command scans the normalised command of a shell-class call (package
// toolclass) where it is more than the input's own strings: argv joined,
// and above all a line typed into a terminal across several calls, which
// may carry a credential no single call holds whole.
func (s *secretScan) command(ev *hooks.Event) {
	v := ev.ToolView()
	if v == nil || v.Class != toolclass.Shell || v.Command == "" {
		return
	}
	if k := s.scanValue(v.Command); k != nil {
		s.kind, s.where = k.name, "the shell command ("+toolCommandField+")"
	}
}

// secretScan is one walk over a tool input. path holds the segments down
// to the value being scanned.
type secretScan struct {
	g       *secretGuard
	report  bool // sort map keys and track the path, to report a finding
	path    []pathSeg
	scanned int

	tooBig bool
	kind   string // kind found
	where  string // rendered path of the finding
}

// pathSeg is a map key, or an array index when index >= 0.
type pathSeg struct {
	key   string
	index int
}

func (s *secretScan) done() bool { return s.tooBig || s.kind != "" }

// run walks the chosen fields, or all of the input.
func (s *secretScan) run(input map[string]any) {
	if s.g.fields == nil {
		s.walk(input)
		return
	}
	for _, path := range s.g.fields {
		v, ok := lookup(input, path)
		if !ok {
			continue
		}
		if s.report {
			s.path = s.path[:0]
			for _, k := range path {
				s.path = append(s.path, pathSeg{key: k, index: -1})
			}
		}
		if str, ok := v.(string); ok {
			if k := s.scanKeyed(path[len(path)-1], str); k != nil {
				s.found(k, false)
				return
			}
		}
		if s.walk(v); s.done() {
			return
		}
	}
}

// walk scans every string beneath v, map keys included, until something
// is found.
func (s *secretScan) walk(v any) {
	switch x := v.(type) {
	case string:
		if k := s.scanValue(x); k != nil {
			s.found(k, false)
		}
	case map[string]any:
		if s.report {
			for _, key := range slices.Sorted(maps.Keys(x)) {
				if s.entry(key, x[key]); s.done() {
					return
				}
			}
			return
		}
		for key, e := range x {
			if s.entry(key, e); s.done() {
				return
			}
		}
	case []any:
		for i, e := range x {
			if s.element(i, e); s.done() {
				return
			}
		}
	case []string:
		for i, e := range x {
			if s.element(i, e); s.done() {
				return
			}
		}
	}
}

// entry scans a map entry: its key (text the model wrote too), the value
// as named by the key, and the value.
func (s *secretScan) entry(key string, v any) {
	if k := s.scanValue(key); k != nil {
		s.found(k, true)
		return
	}
	if s.done() {
		return
	}
	s.push(pathSeg{key: key, index: -1})
	defer s.pop()
	if str, ok := v.(string); ok {
		if k := s.scanKeyed(key, str); k != nil {
			s.found(k, false)
			return
		}
	}
	s.walk(v)
}

func (s *secretScan) element(i int, v any) {
	s.push(pathSeg{index: i})
	s.walk(v)
	s.pop()
}

func (s *secretScan) push(ps pathSeg) {
	if s.report {
		s.path = append(s.path, ps)
	}
}

func (s *secretScan) pop() {
	if s.report {
		s.path = s.path[:len(s.path)-1]
	}
}

// found records a finding in the value at the current path, or in a key
// of the map there (ofKey); only the reporting walk renders the path.
func (s *secretScan) found(k *secretKind, ofKey bool) {
	if s.kind != "" {
		return
	}
	s.kind = k.name
	if s.report {
		s.where = s.render()
		if ofKey {
			s.where = "a key of " + s.where
		}
	}
}

// scanValue returns the kind of the first secret in str that the allow
// list does not let through. It counts str against the byte budget and
// sets tooBig instead of scanning past it.
func (s *secretScan) scanValue(str string) *secretKind {
	if s.tooBig {
		return nil
	}
	s.scanned += len(str)
	if s.scanned > s.g.maxBytes {
		s.tooBig = true
		return nil
	}
	return s.g.findSecret(str)
}

// scanKeyed checks a string value against the kinds recognised by the
// key that names them.
func (s *secretScan) scanKeyed(key, str string) *secretKind {
	for _, k := range s.g.keyed {
		if k.keyRe.MatchString(key) && k.valueRe.MatchString(str) && s.g.accepts(k, str) {
			return k
		}
	}
	return nil
}

// accepts reports whether a candidate is a secret to block: valid for its
// kind and not let through by the allow list.
func (g *secretGuard) accepts(k *secretKind, secret string) bool {
	if k.valid != nil && !k.valid(secret) {
		return false
	}
	for _, a := range g.allow {
		if a.MatchString(secret) {
			return false
		}
	}
	return true
}

// maxPathKey bounds how much of one map key a reason repeats.
const maxPathKey = 40

// render prints the current path as toolInput.a.b[2]; keys that are not
// plain identifiers are quoted, long ones shortened.
func (s *secretScan) render() string {
	var b strings.Builder
	b.WriteString("toolInput")
	for _, ps := range s.path {
		if ps.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(ps.index))
			b.WriteByte(']')
			continue
		}
		seg := ps.key
		if len(seg) > maxPathKey {
			seg = seg[:runeOffset(seg, maxPathKey)] + "…"
		}
		if plainKey(seg) {
			b.WriteByte('.')
			b.WriteString(seg)
		} else {
			b.WriteByte('[')
			b.WriteString(strconv.Quote(seg))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func plainKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && c != '-' && (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}
