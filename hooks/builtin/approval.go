package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hookgate/hookgate/hooks"
)

// ApprovalName is the registry name of the approval built-in.
const ApprovalName = "approval"

// approvalParams are approval's `with:` parameters.
//
//	with:
//	  channel: ops                    # where the card goes (a configured channel)
//	  timeout_s: 120                  # the question expires unanswered after this
//	  requires_confirmation: [pay]    # only these tools (default: every tool the matcher lets through)
type approvalParams struct {
	Channel              string   `json:"channel"`
	TimeoutS             int      `json:"timeout_s"`
	RequiresConfirmation []string `json:"requires_confirmation"`
}

// defaultApprovalTimeout is how long a question stays open by default.
const defaultApprovalTimeout = 120 * time.Second

// approvalGrace is how much longer than the question the hook may run,
// so that an expiry is recorded as expired rather than as a timeout.
const approvalGrace = 5 * time.Second

// approval pauses a tool call until a person answers in a channel (or
// through the admin API or the command line), through the approval gate in
// Deps. Approved: the call goes on. Rejected: blocked, naming who. Nobody
// answered in time: blocked, recorded as expired.
type approval struct {
	id      string
	trusted bool
	gate    hooks.Approver
	params  approvalParams
	timeout time.Duration
}

var (
	_ hooks.DefaultTimeouter = (*approval)(nil)
	_ hooks.AskingHandler    = (*approval)(nil)
)

// NewApproval is the factory of approval, a pre_tool_use hook.
func NewApproval(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if cfg.Event != hooks.PreToolUse {
		return nil, fmt.Errorf("approval holds tool calls: use it on pre_tool_use, not %s", cfg.Event)
	}
	var p approvalParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	if cfg.Deps.Approver == nil {
		return nil, errors.New("approval needs the approval gate: configure a store and admin.token_env")
	}
	if p.TimeoutS < 0 {
		return nil, fmt.Errorf("with.timeout_s: %d is negative", p.TimeoutS)
	}
	timeout := defaultApprovalTimeout
	if p.TimeoutS > 0 {
		timeout = time.Duration(p.TimeoutS) * time.Second
	}
	return &approval{id: cfg.HookID, trusted: cfg.Trusted, gate: cfg.Deps.Approver, params: p, timeout: timeout}, nil
}

// AsksPerson marks the gate as one that holds a call for a person: a
// dry_run approval hook is never called (no card, nothing held) and is
// recorded as would_ask.
func (a *approval) AsksPerson() bool { return true }

// DefaultTimeout lets the hook wait out its question when its entry sets
// no timeout_ms.
func (a *approval) DefaultTimeout() time.Duration { return a.timeout + approvalGrace }

// channel is where the question is posted. A tenant's (untrusted) hook
// names none: the gate then posts it to the tenant's own channel, or
// leaves it to the admin API when the tenant has none, so a tenant's
// question never reaches a channel that is not the tenant's.
func (a *approval) channel() string {
	if !a.trusted {
		return ""
	}
	return a.params.Channel
}

func (a *approval) Handle(ctx context.Context, ev *hooks.Event) (hooks.Result, error) {
	if len(a.params.RequiresConfirmation) > 0 && !slices.Contains(a.params.RequiresConfirmation, ev.ToolName) {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	ans, err := a.gate.Ask(ctx, hooks.ApprovalQuestion{HookID: a.id, Channel: a.channel(), Timeout: a.timeout, Event: ev})
	if err != nil {
		return hooks.Result{}, err
	}
	switch {
	case ans.Approved:
		return hooks.Result{Decision: hooks.Allow, Reason: "approved by " + ans.By, SideEffects: ans.SideEffects}, nil
	case ans.Expired:
		return hooks.Result{Decision: hooks.Expired, Reason: fmt.Sprintf("nobody approved %s within %s", ev.ToolName, a.timeout), SideEffects: ans.SideEffects}, nil
	default:
		return hooks.Result{Decision: hooks.Block, Reason: "rejected by " + ans.By, SideEffects: ans.SideEffects}, nil
	}
}
