package policytest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/app"
)

// Result is one run's verdict: a case, or one agent's sub-case.
type Result struct {
	File  string
	Line  int
	Name  string
	Label string
	// Failures say what differed from the expectation, or what the case
	// lacked; empty means passed.
	Failures []string
	// Stubbed names the http and prompt hooks a stub answered.
	Stubbed []string
}

// Passed reports whether the run met its expectation.
func (r *Result) Passed() bool { return len(r.Failures) == 0 }

// HookInfo is a configured hook, for coverage.
type HookInfo struct {
	ID    string
	Event hooks.EventName
}

// Report is what a Runner found over every file.
type Report struct {
	Results []Result
	// Hooks lists the configuration's hooks; Reached the ids some case
	// ran.
	Hooks   []HookInfo
	Reached map[string]bool
}

// Failed counts the runs that did not pass.
func (r *Report) Failed() int {
	n := 0
	for i := range r.Results {
		if !r.Results[i].Passed() {
			n++
		}
	}
	return n
}

// Unreached lists the hooks no case ran, in declaration order.
func (r *Report) Unreached() []HookInfo {
	var out []HookInfo
	for _, h := range r.Hooks {
		if !r.Reached[h.ID] {
			out = append(out, h)
		}
	}
	return out
}

// Run runs every test file against cfg's hooks. An error is a problem of
// the configuration or of the harness, not a failing case.
func Run(cfg *config.Config, files []*File) (*Report, error) {
	stubs, err := newStubServer()
	if err != nil {
		return nil, err
	}
	defer func() { _ = stubs.Close() }()
	rep := &Report{Reached: map[string]bool{}}
	for _, f := range files {
		results, hooksOf, reached, err := runFile(cfg, f, stubs)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, results...)
		rep.Hooks = hooksOf
		for id := range reached {
			rep.Reached[id] = true
		}
	}
	return rep, nil
}

// runFile compiles a fresh engine for f (rate limits start empty), runs
// its cases in order, then closes the engine, which waits for observing
// hooks, before judging: a stub an observer lacked fails its case too.
func runFile(cfg *config.Config, f *File, stubs *stubServer) ([]Result, []HookInfo, map[string]bool, error) {
	off, ids, remote := offline(cfg, stubs.base)
	if err := checkStubs(f, remote); err != nil {
		return nil, nil, nil, err
	}
	l := newLedger(off)
	stubs.use(l, ids)
	defer stubs.use(nil, nil)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := app.CompileHooks(off, quiet, l.deps())
	if err != nil {
		return nil, nil, nil, fmt.Errorf("compile hooks: %w", err)
	}
	var infos []HookInfo
	for _, h := range eng.Hooks() {
		infos = append(infos, HookInfo{ID: h.ID, Event: h.Event})
	}

	type done struct {
		st  *state
		out hooks.Outcome
		err error
	}
	var all []done
	n := 0
	nextID := func() string { n++; return fmt.Sprintf("policytest-%d", n) }
	for i := range f.Cases {
		c := &f.Cases[i]
		runs, err := c.runs(nextID)
		if err != nil {
			all = append(all, done{st: &state{run: &run{c: c}}, err: err})
			continue
		}
		for j := range runs {
			st := &state{run: &runs[j], stubs: stubsOf(f, c)}
			l.begin(st)
			out := eng.Dispatch(context.Background(), runs[j].Event)
			all = append(all, done{st: st, out: out})
		}
	}
	_ = eng.Close() // waits for observers; a handler's close error changes no verdict

	results := make([]Result, 0, len(all))
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range all {
		c := d.st.run.c
		r := Result{File: f.Path, Line: c.Line, Name: c.Name, Label: d.st.run.Label, Stubbed: uniq(d.st.stubbed)}
		if d.err != nil {
			r.Failures = []string{d.err.Error()}
		} else {
			r.Failures = append(slices.Clone(d.st.problems), judge(&c.Expect, &d.out, d.st)...)
		}
		results = append(results, r)
	}
	return results, infos, l.reached, nil
}

// stubsOf merges the file's stubs with the case's (the case's win).
func stubsOf(f *File, c *Case) map[string]Stub {
	out := map[string]Stub{}
	for id, s := range f.Stubs {
		out[id] = s
	}
	for id, s := range c.Stubs {
		out[id] = s
	}
	return out
}

// checkStubs refuses a stub for a hook that is not an http or prompt hook
// of the configuration (a typo would otherwise stub nothing), and a
// prompt stub that rewrites (a judge can only allow or block).
func checkStubs(f *File, remote map[string]string) error {
	var problems []string
	check := func(where string, stubs map[string]Stub) {
		ids := make([]string, 0, len(stubs))
		for id := range stubs {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			switch kind := remote[id]; {
			case kind == "":
				problems = append(problems, fmt.Sprintf("%s: stub: %s is not an http or prompt hook of the configuration", where, id))
			case kind == "prompt" && stubs[id].Decision == hooks.Rewrite:
				problems = append(problems, fmt.Sprintf("%s: stub: %s is a prompt hook; its judge can only allow or block", where, id))
			}
		}
	}
	check(f.Path, f.Stubs)
	for i := range f.Cases {
		c := &f.Cases[i]
		check(fmt.Sprintf("%s:%d", f.Path, c.Line), c.Stubs)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}

// judge compares an outcome with the expectation.
func judge(e *Expect, out *hooks.Outcome, st *state) []string {
	var fails []string
	if e.Decision == Ask {
		if len(st.asked) == 0 {
			fails = append(fails, fmt.Sprintf("decision: want ask (an approval hook asks a person), got %s with no approval asked", out.Decision))
		}
	} else if out.Decision != e.Decision {
		got := string(out.Decision)
		if out.HookID != "" {
			got += fmt.Sprintf(" by %s (%q)", out.HookID, out.Reason)
		}
		if out.Cause != nil {
			got += fmt.Sprintf("; cause: %v", out.Cause)
		}
		fails = append(fails, fmt.Sprintf("decision: want %s, got %s", e.Decision, got))
	}
	if e.Reason != nil && !e.Reason.Match(out.Reason) {
		fails = append(fails, fmt.Sprintf("reason: want %s, got %q", e.Reason, out.Reason))
	}
	if e.Hook != "" && e.Hook != out.HookID {
		fails = append(fails, fmt.Sprintf("hook: want %s, got %q", e.Hook, out.HookID))
	}
	if e.Input != nil {
		want, got := canonical(e.Input), canonical(out.ToolInput)
		if out.ToolInput == nil {
			got = "no rewrite"
		}
		if want != got {
			fails = append(fails, fmt.Sprintf("input: want %s, got %s", want, got))
		}
	}
	if e.Result != nil {
		switch {
		case out.ToolResult == nil:
			fails = append(fails, fmt.Sprintf("result: want %q, got no rewrite", *e.Result))
		case *out.ToolResult != *e.Result:
			fails = append(fails, fmt.Sprintf("result: want %q, got %q", *e.Result, *out.ToolResult))
		}
	}
	if e.Context != nil && !e.Context.Match(out.Context) {
		fails = append(fails, fmt.Sprintf("context: want %s, got %q", e.Context, out.Context))
	}
	if e.Asked != nil && *e.Asked != (len(st.asked) > 0) {
		fails = append(fails, fmt.Sprintf("asked: want %v, got %v", *e.Asked, len(st.asked) > 0))
	}
	return fails
}

// canonical is m's JSON with sorted keys, so that a YAML expectation and a
// script's rewrite compare by value.
func canonical(m map[string]any) string {
	norm, err := viaJSON(m)
	if err != nil {
		return fmt.Sprintf("%v", m)
	}
	raw, _ := json.Marshal(norm)
	return string(raw)
}

func uniq(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
