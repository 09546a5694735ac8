package store

import (
	"encoding/json"
	"strings"
	"time"
)

// DefaultCaptureTTL is how long a captured event is kept unless
// audit.capture_ttl says otherwise.
const DefaultCaptureTTL = 168 * time.Hour

// Reasons a captured event was not kept (the reason label of
// hookgate_audit_records_dropped_total).
const (
	// DropNoKey: a capture reached a writer without an audit key.
	DropNoKey = "capture_no_key"
	// DropUnencodable: the captured record could not be marshalled,
	// redacted or sealed.
	DropUnencodable = "capture_unencodable"
)

// CaptureRecord is one dispatched event handed to the audit writer to be
// kept for replay. The writer marshals Record to JSON on its own
// goroutine, removes the configuration's secrets and anything shaped like
// a credential, seals it under the audit key for the row's id and writes a
// captured_events row. Without a key nothing is kept.
type CaptureRecord struct {
	SessionID, Event, Tenant, Agent, Tool string
	Decision, DecidedBy                   string
	// Record is marshalled to JSON; the caller must not modify it after
	// Record.
	Record any
}

// captureRows turns a batch's capture entries into sealed rows. An entry
// that cannot be marshalled or sealed is dropped, counted and logged.
func (w *AuditWriter) captureRows(batch []AuditEntry) []Capture {
	var out []Capture
	for _, e := range batch {
		c := e.Capture
		if c == nil {
			continue
		}
		if w.key == nil {
			w.drop(DropNoKey)
			continue
		}
		plain, err := json.Marshal(c.Record)
		if err != nil {
			w.log.Warn("audit: event not captured: cannot be marshalled", "event", c.Event, "err", err)
			w.drop(DropUnencodable)
			continue
		}
		clean, ok := w.redactJSON(plain)
		if !ok {
			w.log.Warn("audit: event not captured: redaction broke its JSON", "event", c.Event)
			w.drop(DropUnencodable)
			continue
		}
		id := newExecutionID()
		sealed, err := w.key.SealCapture(id, clean)
		if err != nil {
			w.log.Warn("audit: event not captured", "event", c.Event, "err", err)
			w.drop(DropUnencodable)
			continue
		}
		out = append(out, Capture{
			ID: id, SessionID: c.SessionID, Event: c.Event, Tenant: c.Tenant, Agent: c.Agent, Tool: c.Tool,
			Decision: c.Decision, DecidedBy: c.DecidedBy, Sealed: sealed,
			CreatedAt: e.At, ExpiresAt: e.At.Add(w.ttl),
		})
	}
	return out
}

// redactJSON removes secrets from a captured record. The credential
// patterns work on text and may cut a JSON escape in two; when the result
// is no longer JSON, only the configuration's own secrets are removed.
func (w *AuditWriter) redactJSON(plain []byte) ([]byte, bool) {
	if out := []byte(w.redact.redact(string(plain))); json.Valid(out) {
		return out, true
	}
	out := []byte(w.redact.redactSecrets(string(plain)))
	return out, json.Valid(out)
}

// redactSecrets removes only the configuration's own secrets.
func (r *redactor) redactSecrets(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "[redacted]")
	}
	return s
}
