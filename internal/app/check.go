package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/interceptors"
)

// Check builds everything a configuration describes without serving it,
// so that `hookgate validate` reports what `hookgate serve` would refuse,
// tenants' hooks files included. Its problems come as a *CheckError, one
// per line with their place. It may be given a configuration that has
// problems of its own (config.Load's *config.Error): its hooks are
// compiled all the same, so that one run reports every problem.
func Check(cfg *config.Config) error {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The approval gate is stood in for: checking a configuration needs
	// no store.
	sv := &services{memory: interceptors.NewLocalMemory(0), approver: noApprover{}, toolCalls: noToolCalls{}, messenger: noMessenger{}}
	pol, err := compilePolicy(cfg, quiet, sv)
	ce := &CheckError{}
	if err != nil {
		var ces hooks.ConfigErrors
		if !errors.As(err, &ces) {
			return err
		}
		for _, e := range ces {
			ce.add(cfg, e)
		}
	} else {
		defer pol.release()
		ids := make([]string, 0, len(pol.tenantErrors))
		for id := range pol.tenantErrors {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			var e *hooks.ConfigError
			if errors.As(pol.tenantErrors[id], &e) {
				ce.add(cfg, e)
				continue
			}
			ce.Problems = append(ce.Problems, config.Problem{Msg: pol.tenantErrors[id].Error()})
			ce.Fields = append(ce.Fields, "")
		}
	}
	if len(ce.Problems) == 0 {
		return nil
	}
	return ce
}

// CheckError lists the problems Check found, one per hook entry problem
// (file:line: hooks[i] id: field: message), in the compiler's order.
// Fields[i] names what Problems[i] is about as config.Problem.Path does
// ("hooks[1].event"; "" for a tenant's file), so that a caller can tell a
// problem config.Load reported too.
type CheckError struct {
	Problems []config.Problem
	Fields   []string
}

func (e *CheckError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("invalid configuration (%d problem(s)):\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// add renders a hook entry's problems, one per problem its error joins
// (a builtin's parameters can hold several), each with the entry's line.
// The compiler's messages start with the field they are about ("event:
// unknown event ..."), which names the problem's Path.
func (e *CheckError) add(cfg *config.Config, ce *hooks.ConfigError) {
	file := cfg.Path
	if ce.Origin != "" {
		file = ce.Origin
	}
	if file == "" {
		file = "config"
	}
	id := ""
	if ce.ID != "" {
		id = " " + ce.ID
	}
	for _, msg := range eachProblem(ce.Err) {
		field := msg
		if i := strings.IndexAny(field, ": "); i >= 0 {
			field = field[:i]
		}
		key := fmt.Sprintf("hooks[%d].%s", ce.Index, field)
		if ce.Origin != "" {
			key = "" // a tenant's file: never an entry of the configuration
		}
		e.Problems = append(e.Problems, config.Problem{File: file, Line: ce.Line, Msg: fmt.Sprintf("hooks[%d]%s: %s", ce.Index, id, msg)})
		e.Fields = append(e.Fields, key)
	}
}

// eachProblem renders err once per error an errors.Join in its chain
// holds, each wrapped as the join was ("handler (builtin): ... : "), so
// that every problem reads whole on a line of its own.
func eachProblem(err error) []string {
	msg := err.Error()
	var many interface{ Unwrap() []error }
	if !errors.As(err, &many) {
		return []string{msg}
	}
	joined := many.(error).Error()
	i := strings.Index(msg, joined)
	if i < 0 || !strings.Contains(joined, "\n") {
		return []string{msg}
	}
	prefix, suffix := msg[:i], msg[i+len(joined):]
	var out []string
	for _, inner := range many.Unwrap() {
		for _, m := range eachProblem(inner) {
			out = append(out, prefix+m+suffix)
		}
	}
	return out
}

// noApprover stands in for the approval gate while a configuration is only
// checked.
type noApprover struct{}

func (noApprover) Ask(context.Context, hooks.ApprovalQuestion) (hooks.ApprovalAnswer, error) {
	return hooks.ApprovalAnswer{}, errors.New("no approval gate while checking a configuration")
}

// noToolCalls and noMessenger stand in for the store and the channels
// while a configuration is only checked.
type noToolCalls struct{}

func (noToolCalls) RecordToolCall(hooks.ToolCallRecord) {}

type noMessenger struct{}

func (noMessenger) SendMessage(context.Context, string, string) error {
	return errors.New("no channels while checking a configuration")
}
