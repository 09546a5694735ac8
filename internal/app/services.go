package app

import (
	"context"

	"github.com/hookgate/hookgate/approvals"
	"github.com/hookgate/hookgate/channels"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/interceptors"
)

// services are what every compiled configuration shares, so that a reload
// keeps them: the recorder (metrics and audit), session memory, tool
// metrics, the approval gate and the audit's admission check.
type services struct {
	recorder  hooks.Recorder
	memory    interceptors.Memory
	tools     *toolMetrics
	approver  hooks.Approver
	toolCalls hooks.ToolCallRecorder
	messenger hooks.Messenger
	readOnly  hooks.ReadOnlyState
	admit     func(context.Context) error
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
