package hooks

// IncidentHookID is the hook id under which hookgate records, beside the
// hooks' own executions, what happened to an exchange that no hook
// decided: an upstream stream cut off mid-answer, say. Parentheses are not
// allowed in a configured hook's id (checked at load), so a row under it
// is always hookgate's own.
const IncidentHookID = "(hookgate)"

// RecordIncident writes hookgate's own record of something that went
// wrong on ev's exchange, through the same recorder (metrics, then the
// audit queue) as every hook execution: decision error, applied block, the
// reason a person reads and the cause kept as the error. It never blocks
// the caller.
func (e *Engine) RecordIncident(ev *Event, reason string, cause error) {
	if e == nil || ev == nil {
		return
	}
	e.rec.HookExecuted(Execution{
		HookID:    IncidentHookID,
		Event:     ev.Event,
		EventID:   ev.EventID,
		SessionID: ev.SessionID,
		Tenant:    ev.Tenant,
		Agent:     ev.Agent,
		Decision:  Error,
		Applied:   Block,
		Reason:    reason,
		Cause:     cause,
	})
}
