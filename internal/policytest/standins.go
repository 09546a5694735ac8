package policytest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/builtin"
	"github.com/hookgate/hookgate/internal/app"
)

// state is what one run's stand-ins saw: the hooks that asked for an
// approval, the stubs that answered, and what the case failed to provide.
type state struct {
	run   *run
	stubs map[string]Stub
	// asked lists the approval hooks that asked; stubbed the http and
	// prompt hooks a stub answered; sent the messages not sent.
	asked, stubbed, sent []string
	// problems are what the case lacked (a stub, an approval answer):
	// each fails it.
	problems []string
}

// ledger maps events to their runs' states while a file runs, for the
// stand-ins, which see only the event (or only the tenant).
type ledger struct {
	cfg *config.Config

	mu      sync.Mutex
	byEvent map[string]*state
	current *state
	reached map[string]bool
}

func newLedger(cfg *config.Config) *ledger {
	return &ledger{cfg: cfg, byEvent: map[string]*state{}, reached: map[string]bool{}}
}

func (l *ledger) begin(st *state) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byEvent[st.run.Event.EventID] = st
	l.current = st
}

// with calls f with the state of eventID under the lock; false when no run
// has that event.
func (l *ledger) with(eventID string, f func(st *state)) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	st, ok := l.byEvent[eventID]
	if ok {
		f(st)
	}
	return ok
}

func (l *ledger) deps() app.OfflineDeps {
	// A dry_run hook is tested as it will act once switched on.
	return app.OfflineDeps{Approver: approver{l}, ReadOnly: readOnly{l}, Messenger: messenger{l}, ToolCalls: noToolCalls{}, Recorder: recorder{l},
		EnforceDryRun: true}
}

// approver answers approval hooks with the case's `approval:`; it never
// posts a card.
type approver struct{ l *ledger }

var _ hooks.Approver = approver{}

func (a approver) Ask(_ context.Context, q hooks.ApprovalQuestion) (hooks.ApprovalAnswer, error) {
	var ans hooks.ApprovalAnswer
	var err error
	found := a.l.with(q.Event.EventID, func(st *state) {
		st.asked = append(st.asked, q.HookID)
		ans = hooks.ApprovalAnswer{ID: "policytest-" + q.Event.EventID, By: "policytest", SideEffects: []string{"approval answered by the test case (no card posted)"}}
		switch st.run.c.Approval {
		case "approve":
			ans.Approved = true
		case "reject":
		case "timeout":
			ans.Expired = true
		case "":
			if st.run.c.Expect.Decision == Ask {
				// Asking is what the case expects; nobody answers.
				ans.Expired = true
				break
			}
			fallthrough
		default:
			st.problems = append(st.problems, fmt.Sprintf("approval hook %s asked, and the case gives no `approval: approve|reject|timeout`", q.HookID))
			err = errors.New("no approval answer in the test case")
		}
	})
	if !found {
		return hooks.ApprovalAnswer{}, errors.New("approval asked for an event no case dispatched")
	}
	return ans, err
}

// readOnly is the case's `read_only:`, else the tenant's read_only in the
// configuration, else no switch. Readonly_guard asks it on the request
// path, while the run that dispatched is the current one.
type readOnly struct{ l *ledger }

var _ hooks.ReadOnlyState = readOnly{}

func (r readOnly) ReadOnly(_ context.Context, tenant string) (bool, bool, error) {
	r.l.mu.Lock()
	st := r.l.current
	r.l.mu.Unlock()
	if st != nil && st.run.c.ReadOnly != nil {
		return *st.run.c.ReadOnly, true, nil
	}
	if t := r.l.cfg.Tenant(tenant); tenant != "" && t != nil && t.ReadOnly {
		return true, true, nil
	}
	return false, false, nil
}

// messenger keeps notify's messages instead of sending them.
type messenger struct{ l *ledger }

var (
	_ hooks.Messenger         = messenger{}
	_ builtin.TenantMessenger = messenger{}
)

func (m messenger) SendMessage(_ context.Context, channel, text string) error {
	m.l.mu.Lock()
	defer m.l.mu.Unlock()
	if m.l.current != nil {
		m.l.current.sent = append(m.l.current.sent, fmt.Sprintf("to %q: %s", channel, text))
	}
	return nil
}

func (m messenger) SendTenantMessage(ctx context.Context, _, channel, text string) error {
	return m.SendMessage(ctx, channel, text)
}

type noToolCalls struct{}

func (noToolCalls) RecordToolCall(hooks.ToolCallRecord) {}

// recorder notes every hook that ran, observers included, for coverage.
type recorder struct{ l *ledger }

var _ hooks.Recorder = recorder{}

func (r recorder) HookExecuted(x hooks.Execution) {
	r.l.mu.Lock()
	r.l.reached[x.HookID] = true
	r.l.mu.Unlock()
}

func (r recorder) ObserverDropped(hooks.EventName, string) {}
func (r recorder) MutationStripped(string, []string)       {}
