package builtin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hookgate/hookgate/hooks"
)

// AuditLogName is the registry name of the audit_log built-in.
const AuditLogName = "audit_log"

// auditLog records every tool call whose result comes back: tenant,
// session, tool, arguments hash, result size and the time from call to
// result. It observes inline, so its record goes through the audit queue
// and is never dropped with the observer pool's events: coverage no longer
// depends on anyone remembering to log.
type auditLog struct {
	rec hooks.ToolCallRecorder
}

var _ hooks.InlineObserver = (*auditLog)(nil)

// NewAuditLog is the factory of audit_log, a post_tool_use hook. It takes
// no parameters.
func NewAuditLog(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if cfg.Event != hooks.PostToolUse {
		return nil, fmt.Errorf("audit_log records tool results: use it on post_tool_use, not %s", cfg.Event)
	}
	var none struct{}
	if err := hooks.DecodeWith(cfg.With, &none); err != nil {
		return nil, err
	}
	if cfg.Deps.ToolCalls == nil {
		return nil, errors.New("audit_log needs the store")
	}
	return &auditLog{rec: cfg.Deps.ToolCalls}, nil
}

// ObserveInline keeps the record out of the observer pool, which may drop
// events under load.
func (a *auditLog) ObserveInline() bool { return true }

func (a *auditLog) Handle(_ context.Context, ev *hooks.Event) (hooks.Result, error) {
	r := hooks.ToolCallRecord{
		Tenant: ev.Tenant, SessionID: ev.SessionID, ToolCallID: ev.ToolCallID, Tool: ev.ToolName, Input: ev.ToolInput,
	}
	if ev.ToolResult != nil {
		r.ResultBytes = len(*ev.ToolResult)
	}
	if at, ok := ev.Metadata["toolCallAt"].(string); ok {
		if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
			r.CalledAt = t
		}
	}
	a.rec.RecordToolCall(r)
	return hooks.Result{Decision: hooks.Allow, SideEffects: []string{"recorded tool call " + ev.ToolCallID}}, nil
}
