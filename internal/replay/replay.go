// Package replay re-runs the events hookgate captured (audit.capture_events)
// through another configuration's hooks, offline, and reports every
// decision that would differ from the one hookgate made.
//
// Nothing it runs reaches an upstream, a channel or a person: approvals
// are noted (would_ask) and answered yes so the rest of the chain runs,
// rate limits count from an empty budget in memory, messages are not sent.
// Command, http and prompt hooks run only with Options.LiveHooks; without
// it they answer what the same hook decided at capture time (allow when it
// did not run then) and the event is marked "not replayed" for them.
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/app"
	"github.com/hookgate/hookgate/store"
)

// WouldAsk is the decision of a call an approval hook puts to a person.
const WouldAsk = "would_ask"

// Captured is one captured event, opened.
type Captured struct {
	Row    store.Capture
	Record app.CapturedRecord
}

// Load reads the captured events f selects from st and opens them with
// key. A blob that does not open (another key, moved, damaged) is an
// error wrapping store.ErrCaptureSeal, naming its row.
func Load(ctx context.Context, st *store.Store, key *store.AuditKey, f store.CaptureFilter) ([]Captured, error) {
	rows, err := st.ListCaptures(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]Captured, 0, len(rows))
	for _, r := range rows {
		plain, err := key.OpenCapture(r.ID, r.Sealed)
		if err != nil {
			return nil, err
		}
		c := Captured{Row: r}
		if err := json.Unmarshal(plain, &c.Record); err != nil || c.Record.Event == nil {
			return nil, fmt.Errorf("replay: captured event %s: not a captured record: %v", r.ID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// Options change how a replay runs.
type Options struct {
	// LiveHooks runs command, http and prompt hooks for real.
	LiveHooks bool
	// Logger receives the engine's log; nil discards it.
	Logger *slog.Logger
}

// Verdict is a decision on one event: allow, rewrite, block, error or
// WouldAsk, with the hook that blocked, failed or asked.
type Verdict struct {
	Decision string `json:"decision"`
	HookID   string `json:"hookId,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Call is one replayed event.
type Call struct {
	CaptureID string    `json:"captureId"`
	At        time.Time `json:"at"`
	SessionID string    `json:"sessionId"`
	Event     string    `json:"event"`
	Tenant    string    `json:"tenant,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	// Input is what was judged: the tool's input, or the prompt.
	Input any     `json:"input,omitempty"`
	Old   Verdict `json:"old"`
	New   Verdict `json:"new"`
	// NotReplayed names the command, http and prompt hooks that would
	// have run and answered with their captured decision instead.
	NotReplayed []string `json:"notReplayed,omitempty"`
}

// Changed reports whether the new configuration decides otherwise.
func (c *Call) Changed() bool { return c.Old.Decision != c.New.Decision }

// Run dispatches the captured events, oldest first, through one engine
// compiled from cfg (so rate limits count from empty across the replay).
func Run(cfg *config.Config, events []Captured, opts Options) (*Report, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	byEvent := map[string]*Captured{}
	for i := range events {
		byEvent[events[i].Row.ID] = &events[i]
	}
	sb := newStandins(byEvent)
	sb.cfg = cfg
	var off *config.Config
	if !opts.LiveHooks {
		stubs, err := newStubServer(sb)
		if err != nil {
			return nil, err
		}
		defer func() { _ = stubs.Close() }()
		if off, err = offline(cfg, stubs); err != nil {
			return nil, err
		}
	} else {
		off = withLocalRateLimits(cfg)
	}
	eng, err := app.CompileHooks(off, log, sb.deps())
	if err != nil {
		return nil, fmt.Errorf("replay: compile hooks: %w", err)
	}
	rep := &Report{}
	for i := range events {
		c := &events[i]
		ev := *c.Record.Event
		// The row id is unique where a resent event's id is not: the
		// stand-ins find the capture by it.
		ev.EventID = c.Row.ID
		sb.begin(c)
		out := eng.Dispatch(context.Background(), &ev)
		call := Call{
			CaptureID: c.Row.ID, At: c.Row.CreatedAt, SessionID: c.Row.SessionID, Event: c.Row.Event,
			Tenant: c.Row.Tenant, Agent: c.Row.Agent, Tool: c.Row.Tool,
			Input: inputOf(c.Record.Event),
			Old:   oldVerdict(&c.Record.Outcome),
			New:   newVerdict(&out, sb.askedBy(c.Row.ID)),
		}
		call.NotReplayed = sb.notReplayedOn(c.Row.ID)
		rep.Calls = append(rep.Calls, call)
	}
	_ = eng.Close() // waits for observers; their close errors change no verdict
	return rep, nil
}

// oldVerdict is the captured outcome, an approval asked counting as
// WouldAsk unless another hook blocked.
func oldVerdict(o *app.CapturedOutcome) Verdict {
	v := Verdict{Decision: string(o.Decision), HookID: o.HookID, Reason: o.Reason}
	if len(o.Asked) > 0 && (o.Decision != hooks.Block && o.Decision != hooks.Error || contains(o.Asked, o.HookID)) {
		return Verdict{Decision: WouldAsk, HookID: o.Asked[0]}
	}
	return v
}

// newVerdict is a replayed outcome; the stand-in approves, so an asked
// approval shows as WouldAsk unless a hook blocked.
func newVerdict(o *hooks.Outcome, asked []string) Verdict {
	if len(asked) > 0 && o.Decision != hooks.Block && o.Decision != hooks.Error {
		return Verdict{Decision: WouldAsk, HookID: asked[0]}
	}
	return Verdict{Decision: string(o.Decision), HookID: o.HookID, Reason: o.Reason}
}

// inputOf is what an event's hooks judged, for the report.
func inputOf(ev *hooks.Event) any {
	switch {
	case ev.ToolInput != nil:
		return ev.ToolInput
	case ev.ToolResult != nil:
		return *ev.ToolResult
	case ev.Prompt != "":
		return ev.Prompt
	case ev.Response != "":
		return ev.Response
	}
	return nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// withLocalRateLimits is cfg with rate limits counted in memory (from an
// empty budget), not in a shared Redis.
func withLocalRateLimits(cfg *config.Config) *config.Config {
	c := *cfg
	c.Hooks = make([]hooks.Spec, len(cfg.Hooks))
	for i, spec := range cfg.Hooks {
		h := spec.Handler
		if _, shared := h.With["redis"]; shared && h.Type == "builtin" && h.Name == "rate_limit" {
			h.With = maps.Clone(h.With)
			delete(h.With, "redis")
		}
		spec.Handler = h
		c.Hooks[i] = spec
	}
	return &c
}

// standins take the place of the approval gate, the read-only switch, the
// channels and the tool-call log while a replay runs, and note what each
// event asked of them.
type standins struct {
	cfg     *config.Config
	byEvent map[string]*Captured

	mu          sync.Mutex
	current     *Captured
	asked       map[string][]string
	notReplayed map[string][]string
}

func newStandins(byEvent map[string]*Captured) *standins {
	return &standins{byEvent: byEvent, asked: map[string][]string{}, notReplayed: map[string][]string{}}
}

func (s *standins) begin(c *Captured) {
	s.mu.Lock()
	s.current = c
	s.mu.Unlock()
}

func (s *standins) askedBy(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[id]
}

func (s *standins) notReplayedOn(id string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notReplayed[id]
}

func (s *standins) deps() app.OfflineDeps {
	return app.OfflineDeps{Approver: approver{s}, ReadOnly: readOnly{s}, Messenger: messenger{}, ToolCalls: noToolCalls{}, Recorder: nopRecorder{}}
}

// approver notes the approval hooks that ask and answers yes, so that the
// hooks after them run as they would once a person agreed.
type approver struct{ s *standins }

func (a approver) Ask(_ context.Context, q hooks.ApprovalQuestion) (hooks.ApprovalAnswer, error) {
	if q.Event != nil {
		a.s.mu.Lock()
		a.s.asked[q.Event.EventID] = append(a.s.asked[q.Event.EventID], q.HookID)
		a.s.mu.Unlock()
	}
	return hooks.ApprovalAnswer{Approved: true, By: "replay", SideEffects: []string{"approval noted by replay (no card posted)"}}, nil
}

// readOnly is the switch as captured with the event, else the replayed
// configuration's tenant read_only.
type readOnly struct{ s *standins }

func (r readOnly) ReadOnly(_ context.Context, tenant string) (bool, bool, error) {
	r.s.mu.Lock()
	cur := r.s.current
	r.s.mu.Unlock()
	if cur != nil {
		if sw, ok := cur.Record.Switches[tenant]; ok {
			return sw.On, sw.Set, nil
		}
	}
	if r.s.cfg == nil || tenant == "" {
		return false, false, nil
	}
	if t := r.s.cfg.Tenant(tenant); t != nil && t.ReadOnly {
		return true, true, nil
	}
	return false, false, nil
}

type messenger struct{}

func (messenger) SendMessage(context.Context, string, string) error { return nil }

func (m messenger) SendTenantMessage(ctx context.Context, _, channel, text string) error {
	return m.SendMessage(ctx, channel, text)
}

type noToolCalls struct{}

func (noToolCalls) RecordToolCall(hooks.ToolCallRecord) {}

type nopRecorder struct{}

func (nopRecorder) HookExecuted(hooks.Execution)            {}
func (nopRecorder) ObserverDropped(hooks.EventName, string) {}
func (nopRecorder) MutationStripped(string, []string)       {}
