// Package approvals is the human approval gate: it puts a risky tool call
// to a person, through a channel, and holds the call until the person
// answers or the question expires.
//
// The question lives in the store (confirmation_requests), not in memory,
// so it survives restarts: when the agent retries the same call (same
// session, tool and arguments hash) the gate re-attaches to the pending
// question instead of posting a second card, and an answer given while
// hookgate was down (through the command line) or through another instance
// is honoured. Answers come from the admin API, channel callbacks and the
// command line; each is claimed atomically in the store, so two approvers
// can never both win, and it is bound to the question's tool and
// arguments hash.
//
// A waiting call learns of an answer given elsewhere from the store's
// notifications (PostgreSQL LISTEN/NOTIFY, store.TopicApproval) as it
// commits. While the store does not hear them (SQLite, or the listener's
// connection lost) it polls instead, and it looks once more whenever they
// are heard again (store.TopicResync), so an answer given during a gap is
// not missed.
package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hookgate/hookgate/channels"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/internal/admission"
	"github.com/hookgate/hookgate/store"
)

// DefaultPoll is how often a waiting call looks at its question in the
// store while the store hears no notifications (store.Live is false):
// then this is how an answer given through another instance (or the
// command line) reaches it. Answers given through this instance, and any
// notified one, wake it at once.
const DefaultPoll = 500 * time.Millisecond

// Gate asks and answers approval questions.
type Gate struct {
	store         *store.Store
	channels      func() map[string]channels.Channel
	tenantChannel func(string) string
	poll          time.Duration
	log           *slog.Logger
	pending       *admission.Limit

	mu      sync.Mutex
	waiters map[string][]chan struct{}
	unwatch func()
}

var _ hooks.Approver = (*Gate)(nil)

// Options configure a Gate. Every zero value has a default.
type Options struct {
	// Channels returns the channels in force (they change on reload). Nil
	// means no channel: questions are answered through the admin API or
	// the command line only.
	Channels func() map[string]channels.Channel
	// TenantChannel names a tenant's own channel for its questions (""
	// keeps the hook's). Nil: every question goes to the hook's channel.
	TenantChannel func(tenant string) string
	// Poll is how often a waiting call polls while the store hears no
	// notifications; DefaultPoll when zero.
	Poll   time.Duration
	Logger *slog.Logger
	// Pending bounds the calls of this instance waiting for a person
	// (limits.max_pending_approvals). Over it a call is blocked at once,
	// no question is stored and no card posted. Nil: unbounded.
	Pending *admission.Limit
}

// New returns a gate on st.
func New(st *store.Store, opts Options) *Gate {
	g := &Gate{store: st, channels: opts.Channels, tenantChannel: opts.TenantChannel, poll: opts.Poll, log: opts.Logger, pending: opts.Pending, waiters: map[string][]chan struct{}{}}
	if g.poll <= 0 {
		g.poll = DefaultPoll
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	if g.channels == nil {
		g.channels = func() map[string]channels.Channel { return nil }
	}
	g.unwatch = st.Watch(g.notified)
	return g
}

// Close stops listening to the store's notifications; calls still
// waiting fall back to polling.
func (g *Gate) Close() { g.unwatch() }

// notified wakes the calls an answer given anywhere concerns, and every
// waiting call when notifications are heard again after a gap.
func (g *Gate) notified(c store.Change) {
	switch c.Topic {
	case store.TopicApproval:
		g.wakeAll(c.Payload)
	case store.TopicResync:
		g.wakeEvery()
	}
}

// payload is what an approver is shown, stored with the question.
type payload struct {
	Hook    string `json:"hook"`
	Channel string `json:"channel,omitempty"`
	Tool    string `json:"tool"`
	Session string `json:"session"`
	Tenant  string `json:"tenant,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Args    string `json:"arguments"`
}

// Ask implements hooks.Approver: it finds or creates the question for this
// call, posts a card when the question is new, and waits for its end.
//
// An answer already given is honoured at once. A call that would wait
// while limits.max_pending_approvals calls already wait on this instance
// is refused with a *hooks.OverloadError (the call is blocked, its note
// names the limit); one that waits gives its hook execution slot back, as
// it now waits for a person, not for the machine.
func (g *Gate) Ask(ctx context.Context, q hooks.ApprovalQuestion) (hooks.ApprovalAnswer, error) {
	ev := q.Event
	if g.tenantChannel != nil && ev.Tenant != "" {
		if own := g.tenantChannel(ev.Tenant); own != "" {
			q.Channel = own // a tenant's questions go to its own group
		}
	}
	argsHash, err := store.InputHash(ev.ToolInput)
	if err != nil {
		return hooks.ApprovalAnswer{}, fmt.Errorf("approval: hashing the arguments: %w", err)
	}
	// An answer given while this call was away (a restart, another
	// instance, the command line) is honoured.
	if c, err := g.store.FindAnsweredConfirmation(ctx, ev.SessionID, ev.ToolName, argsHash, time.Now().Add(-q.Timeout)); err == nil {
		return answerOf(c, []string{"honoured earlier answer to approval " + c.ID}), nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return hooks.ApprovalAnswer{}, fmt.Errorf("approval: %w", err)
	}
	if !g.pending.TryAcquire() {
		return hooks.ApprovalAnswer{}, &hooks.OverloadError{Limit: "limits.max_pending_approvals", Max: g.pending.Max()}
	}
	defer g.pending.Release()
	hooks.YieldSlot(ctx)
	body, _ := json.Marshal(payload{
		Hook: q.HookID, Channel: q.Channel, Tool: ev.ToolName, Session: ev.SessionID,
		Tenant: ev.Tenant, Agent: ev.Agent, Args: preview(ev.ToolInput),
	})
	c, created, err := g.store.CreateConfirmation(ctx, store.NewConfirmation{
		Tool: ev.ToolName, SessionID: ev.SessionID, ArgsHash: argsHash, Payload: string(body),
		ExpiresAt: time.Now().Add(q.Timeout),
	})
	if err != nil {
		return hooks.ApprovalAnswer{}, fmt.Errorf("approval: %w", err)
	}
	var effects []string
	if created {
		effects = append(effects, g.postCard(ctx, c, q))
	} else {
		effects = append(effects, "re-attached to pending approval "+c.ID)
	}
	return g.wait(ctx, c, effects)
}

// postCard puts a new question to the channel, and says what it did. A
// card that cannot be posted leaves the question open for the admin API.
func (g *Gate) postCard(ctx context.Context, c store.Confirmation, q hooks.ApprovalQuestion) string {
	if q.Channel == "" {
		return "approval " + c.ID + " waits for the admin API (no channel)"
	}
	ch, ok := g.channels()[q.Channel]
	if !ok {
		g.log.Error("approval channel not configured", "channel", q.Channel, "approval", c.ID)
		return "approval " + c.ID + ": channel " + q.Channel + " is not configured"
	}
	card := channels.Card{
		ApprovalID: c.ID,
		Title:      "Approve " + c.Tool + "?",
		Fields: []channels.Field{
			{Label: "Tool", Value: c.Tool},
			{Label: "Session", Value: c.SessionID},
			{Label: "Arguments", Value: preview(q.Event.ToolInput)},
			{Label: "Expires", Value: c.ExpiresAt.UTC().Format(time.RFC3339)},
		},
	}
	if q.Event.Agent != "" {
		card.Fields = append(card.Fields, channels.Field{Label: "Agent", Value: q.Event.Agent})
	}
	if _, err := ch.SendCard(ctx, card); err != nil {
		g.log.Error("approval card not posted; the question stays open for the admin API", "channel", q.Channel, "approval", c.ID, "err", err)
		return "approval " + c.ID + ": posting the card to " + q.Channel + " failed"
	}
	return "posted approval card " + c.ID + " to " + q.Channel
}

// wait holds the call until its question ends: answered (a wake-up from
// this instance or a notification, or seen at a poll), expired, or the
// caller gone. It reads the question once after it is registered for
// wake-ups, so an answer given before that is not missed either.
func (g *Gate) wait(ctx context.Context, c store.Confirmation, effects []string) (hooks.ApprovalAnswer, error) {
	wake := g.listen(c.ID)
	defer g.forget(c.ID, wake)
	tick := time.NewTicker(g.poll)
	defer tick.Stop()
	expiry := time.NewTimer(time.Until(c.ExpiresAt))
	defer expiry.Stop()
	for {
		now, err := g.store.GetConfirmation(ctx, c.ID)
		if err != nil {
			return hooks.ApprovalAnswer{}, fmt.Errorf("approval: %w", err)
		}
		if now.Status != store.Pending {
			return answerOf(now, effects), nil
		}
		if err := g.nextLook(ctx, wake, tick.C, expiry.C); err != nil {
			return hooks.ApprovalAnswer{}, fmt.Errorf("approval %s: %w", c.ID, err)
		}
	}
}

// nextLook blocks until a waiting call has a reason to read its question
// again: a wake-up, its expiry (then expired questions are marked), or a
// poll tick while the store hears no notifications.
func (g *Gate) nextLook(ctx context.Context, wake <-chan struct{}, tick, expiry <-chan time.Time) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
			return nil
		case <-tick:
			if !g.store.Live() {
				return nil
			}
		case <-expiry:
			_, err := g.store.ExpireConfirmations(ctx)
			return err
		}
	}
}

func answerOf(c store.Confirmation, effects []string) hooks.ApprovalAnswer {
	return hooks.ApprovalAnswer{
		ID:          c.ID,
		Approved:    c.Status == store.Approved,
		Expired:     c.Status == store.Expired,
		By:          c.RespondedBy,
		SideEffects: effects,
	}
}

func (g *Gate) listen(id string) chan struct{} {
	ch := make(chan struct{}, 1)
	g.mu.Lock()
	g.waiters[id] = append(g.waiters[id], ch)
	g.mu.Unlock()
	return ch
}

func (g *Gate) forget(id string, ch chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	list := g.waiters[id]
	for i, w := range list {
		if w == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(g.waiters, id)
	} else {
		g.waiters[id] = list
	}
}

// wakeAll tells the calls of this instance waiting on id to look again.
func (g *Gate) wakeAll(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, ch := range g.waiters[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// wakeEvery tells every waiting call of this instance to look again.
func (g *Gate) wakeEvery() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, list := range g.waiters {
		for _, ch := range list {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// maxPreview bounds the arguments shown to an approver.
const maxPreview = 600

// preview renders tool arguments for a person, cut to a readable length.
func preview(input map[string]any) string {
	b, err := json.Marshal(input)
	if err != nil {
		return "(arguments not displayable)"
	}
	if r := []rune(string(b)); len(r) > maxPreview {
		return string(r[:maxPreview]) + "…"
	}
	return string(b)
}

// JanitorJob names the expiry job's lead in the store.
const JanitorJob = "approval-expiry"

// Janitor marks questions past their expiry as expired every interval,
// for calls whose waiter is gone (a crash, a client that left), until ctx
// ends. Of several instances on one PostgreSQL store only the one holding
// the job's lead (an advisory lock, store.TryLead) runs it; the others
// try to take the lead at each interval, so one of them takes over within
// an interval of the owner's end. The lead is released when ctx ends.
func (g *Gate) Janitor(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var lead *store.Lead
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := lead.Release(rctx); err != nil {
			g.log.Warn("approval expiry job: lead not released; it ends with its connection", "err", err)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if lead != nil && !lead.Held(ctx) {
			g.log.Warn("approval expiry job: lead lost")
			lead = nil
		}
		if lead == nil {
			var err error
			if lead, err = g.store.TryLead(ctx, JanitorJob); err != nil {
				if ctx.Err() == nil {
					g.log.Warn("approval expiry job: taking the lead", "err", err)
				}
				continue
			}
			if lead == nil {
				continue // another instance runs it
			}
			g.log.Debug("approval expiry job: this instance runs it")
		}
		if _, err := g.store.ExpireConfirmations(ctx); err != nil && ctx.Err() == nil {
			g.log.Warn("expiring approval questions", "err", err)
		}
	}
}
