package app

import (
	"context"

	"github.com/hookgate/hookgate/approvals"
	"github.com/hookgate/hookgate/channels"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/toolclass"
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/internal/admission"
)

// services are what every compiled configuration shares, so that a reload
// keeps them: the recorder (metrics and audit), session memory, tool
// metrics, the approval gate, the audit's admission check and the bound
// on hook executions.
type services struct {
	recorder  hooks.Recorder
	memory    interceptors.Memory
	tools     *toolMetrics
	approver  hooks.Approver
	toolCalls hooks.ToolCallRecorder
	messenger hooks.Messenger
	readOnly  hooks.ReadOnlyState
	admit     func(context.Context) error
	// hookSlots bounds hook executions across engines
	// (limits.max_concurrent_hooks); nil: unbounded.
	hookSlots *admission.Limit
	// terminals remembers the lines typed into agents' terminal sessions
	// (write_stdin), so that a reload does not forget a half-typed command.
	terminals *toolclass.Terminals
	// capture keeps dispatched events (audit.capture_events); nil: none.
	capture hooks.Capturer
}

// channelsOf returns a function that reads the channels of the policy in
// force, for the approval gate (channels change with reloads).
func channelsOf(a *App) func() map[string]channels.Channel {
	return func() map[string]channels.Channel {
		if pol := a.current.Load(); pol != nil {
			return pol.channels
		}
		return nil
	}
}

var _ hooks.Approver = (*approvals.Gate)(nil)
