package hooks

// EnforcesAny reports whether any hook configured for ev.Event that is not
// dry_run is in scope for ev.Tenant and ev.Agent, whatever its matcher and
// condition: a caller that must decide before the tool's name and input
// are known (whether to hold a streamed tool call) holds whenever it
// reports true, and may relay the call unheld only when every hook that
// could see it is a dry run, which never changes what the agent reads.
//
// It fails closed: a hook whose matcher would not take the call, or whose
// if_expr would be false, still counts, and so does an approval hook. An
// event no hook watches reports false (nothing to enforce). It allocates
// nothing.
func (e *Engine) EnforcesAny(ev *Event) bool {
	i := ev.Event.index()
	if i < 0 || e.chains[i] == nil {
		return false
	}
	for _, h := range e.chains[i].hooks {
		if !h.dryRun && h.inScope(ev) {
			return true
		}
	}
	return false
}
