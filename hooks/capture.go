package hooks

// Capturer keeps dispatched events for a later replay through another
// configuration (audit.capture_events). Captured is called on the request
// path once per Dispatch, after the synchronous hooks have decided, with
// the event as the caller gave it (before any rewrite) and the outcome. It
// must return quickly (hand the record to a bounded queue) and must not
// modify either: observers may still be reading the event.
type Capturer interface {
	Captured(ev *Event, out *Outcome)
}
