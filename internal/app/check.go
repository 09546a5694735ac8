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
// tenants' hooks files included. Problems are listed one per line with
// their place.
func Check(cfg *config.Config) error {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The approval gate is stood in for: checking a configuration needs
	// no store.
	sv := &services{memory: interceptors.NewLocalMemory(0), approver: noApprover{}, toolCalls: noToolCalls{}, messenger: noMessenger{}}
	pol, err := compilePolicy(cfg, quiet, sv)
	var lines []string
	if err != nil {
		var ces hooks.ConfigErrors
		if !errors.As(err, &ces) {
			return err
		}
		for _, ce := range ces {
			lines = append(lines, hookProblem(cfg, ce))
		}
	} else {
		defer pol.release()
		ids := make([]string, 0, len(pol.tenantErrors))
		for id := range pol.tenantErrors {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			var ce *hooks.ConfigError
			if errors.As(pol.tenantErrors[id], &ce) {
				lines = append(lines, hookProblem(cfg, ce))
				continue
			}
			lines = append(lines, pol.tenantErrors[id].Error())
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("invalid configuration (%d problem(s)):\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// hookProblem renders a hook entry's problem as file:line: hooks[i] id: msg.
func hookProblem(cfg *config.Config, ce *hooks.ConfigError) string {
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
	return fmt.Sprintf("%s:%d: hooks[%d]%s: %v", file, ce.Line, ce.Index, id, ce.Err)
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
