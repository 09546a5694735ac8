package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/store"
)

// CapturedRecord is what audit.capture_events keeps of one dispatched
// event, sealed in captured_events: the event as hooks received it
// (without the request headers exposed in metadata) and what hookgate
// decided. `hookgate replay` reads it back.
type CapturedRecord struct {
	Event   *hooks.Event    `json:"event"`
	Outcome CapturedOutcome `json:"outcome"`
	// Switches are the run-time read-only switches as hookgate last read
	// them for a hook before this event was captured: the organisation's
	// (key "") and the event's tenant's; absent when no hook had asked.
	Switches map[string]Switch `json:"switches,omitempty"`
}

// Switch is a read-only switch's state: Set is false when nobody threw
// it at run time (the configuration decides).
type Switch struct {
	On  bool `json:"on"`
	Set bool `json:"set"`
}

// CapturedOutcome is the chain's verdict on a captured event.
type CapturedOutcome struct {
	Decision hooks.Decision `json:"decision"`
	HookID   string         `json:"hookId,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	// Asked names the approval hooks that asked a person.
	Asked []string `json:"asked,omitempty"`
	// Hooks are the synchronous hooks that ran, in order.
	Hooks []CapturedHook `json:"hooks,omitempty"`
}

// CapturedHook is one synchronous hook's part in a captured outcome.
type CapturedHook struct {
	ID       string         `json:"id"`
	Decision hooks.Decision `json:"decision"`
	Applied  hooks.Decision `json:"applied,omitempty"`
	Reason   string         `json:"reason,omitempty"`
}

// eventCapture is the engine's Capturer under audit.capture_events: it
// hands each event and outcome to the audit queue, which marshals, redacts
// and seals them off the request path.
type eventCapture struct {
	w *store.AuditWriter
	// headers are the metadata keys that hold request headers
	// (interception.metadata_headers): never captured.
	headers  map[string]bool
	asked    *askLog
	switches *switchLog
}

var _ hooks.Capturer = (*eventCapture)(nil)

func newEventCapture(cfg *config.Config, audit *AuditRecorder) *eventCapture {
	c := &eventCapture{w: audit.w, headers: map[string]bool{}, asked: &askLog{byEvent: map[string][]string{}},
		switches: &switchLog{last: map[string]Switch{}}}
	for _, h := range cfg.Interception.MetadataHeaders {
		c.headers[h] = true
	}
	return c
}

// Captured queues the record; the event is copied shallowly (its maps
// are never modified once dispatched).
func (c *eventCapture) Captured(ev *hooks.Event, out *hooks.Outcome) {
	cp := *ev
	cp.Tool = nil // the engine derives it again from the tool's name and input
	if len(ev.Metadata) > 0 {
		cp.Metadata = make(map[string]any, len(ev.Metadata))
		for k, v := range ev.Metadata {
			if !c.headers[k] {
				cp.Metadata[k] = v
			}
		}
	}
	rec := CapturedRecord{Event: &cp, Outcome: CapturedOutcome{
		Decision: out.Decision, HookID: out.HookID, Reason: out.Reason, Asked: c.asked.take(ev.EventID),
	}, Switches: c.switches.of(ev.Tenant)}
	for i := range out.Executions {
		x := &out.Executions[i]
		rec.Outcome.Hooks = append(rec.Outcome.Hooks, CapturedHook{ID: x.HookID, Decision: x.Decision, Applied: x.Applied, Reason: x.Reason})
	}
	c.w.Record(store.AuditEntry{Capture: &store.CaptureRecord{
		SessionID: ev.SessionID, Event: string(ev.Event), Tenant: ev.Tenant, Agent: ev.Agent, Tool: ev.ToolName,
		Decision: string(out.Decision), DecidedBy: out.HookID, Record: rec,
	}})
}

// askLog notes which approval hooks asked a person for which event, so
// that the capture can say so.
type askLog struct {
	next    hooks.Approver
	mu      sync.Mutex
	byEvent map[string][]string
}

var _ hooks.Approver = (*askLog)(nil)

func (a *askLog) Ask(ctx context.Context, q hooks.ApprovalQuestion) (hooks.ApprovalAnswer, error) {
	if q.Event != nil {
		a.mu.Lock()
		a.byEvent[q.Event.EventID] = append(a.byEvent[q.Event.EventID], q.HookID)
		a.mu.Unlock()
	}
	return a.next.Ask(ctx, q)
}

func (a *askLog) take(eventID string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids, ok := a.byEvent[eventID]
	if ok {
		delete(a.byEvent, eventID)
	}
	return ids
}

// switchLog remembers the read-only switch's last answer per tenant, so
// that a capture can say how the switch stood.
type switchLog struct {
	next hooks.ReadOnlyState
	mu   sync.Mutex
	last map[string]Switch
}

var _ hooks.ReadOnlyState = (*switchLog)(nil)

func (l *switchLog) ReadOnly(ctx context.Context, tenant string) (bool, bool, error) {
	value, set, err := l.next.ReadOnly(ctx, tenant)
	if err == nil {
		l.mu.Lock()
		l.last[tenant] = Switch{On: value, Set: set}
		l.mu.Unlock()
	}
	return value, set, err
}

// of returns the organisation's and tenant's last answers; nil when the
// switch was never read.
func (l *switchLog) of(tenant string) map[string]Switch {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.last) == 0 {
		return nil
	}
	out := map[string]Switch{}
	for _, k := range []string{"", tenant} {
		if v, ok := l.last[k]; ok {
			out[k] = v
		}
	}
	return out
}

// enableCapture makes sv capture every dispatched event (and note the
// approvals asked and the read-only switch read) when cfg says
// audit.capture_events.
func (sv *services) enableCapture(cfg *config.Config, audit *AuditRecorder) {
	if !cfg.Audit.CaptureEvents {
		return
	}
	c := newEventCapture(cfg, audit)
	c.asked.next = sv.approver
	sv.approver = c.asked
	if sv.readOnly != nil {
		c.switches.next = sv.readOnly
		sv.readOnly = c.switches
	}
	sv.capture = c
}

// capturePurger deletes expired captured events now and then
// (audit.capture_ttl).

// purgeEvery is how often expired captures are deleted: a quarter of the
// retention, between a minute and ten.
func purgeEvery(ttl time.Duration) time.Duration { return min(max(ttl/4, time.Minute), 10*time.Minute) }

type capturePurger struct {
	stop chan struct{}
	done chan struct{}
}

func startCapturePurger(st *store.Store, every time.Duration, log *slog.Logger) *capturePurger {
	p := &capturePurger{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				if n, err := st.PurgeCaptures(ctx, false); err != nil {
					log.Warn("audit: expired captured events not purged", "err", err)
				} else if n > 0 {
					log.Info("audit: expired captured events purged", "rows", n)
				}
				cancel()
			}
		}
	}()
	return p
}

// Close stops the purger; nil is a no-op.
func (p *capturePurger) Close() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
}
