package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/hookgate/hookgate/channels"
	"github.com/hookgate/hookgate/store"
)

// ErrWrongChannel refuses an answer that came through a channel other
// than the one the question was posted to.
var ErrWrongChannel = errors.New("the answer came through another channel than the question")

// Decide records a person's answer to question id and releases the call
// waiting on it in this instance (other instances hear it through the
// store's notification, or see it at their next poll while they hear
// none). The answer is claimed atomically: of two approvers, one wins; the
// loser gets store.ErrNotPending with the winning row.
func (g *Gate) Decide(ctx context.Context, id string, approve bool, by string) (store.Confirmation, error) {
	return g.Answer(ctx, id, approve, by, "")
}

// Answer is Gate.Decide with the approver's comment, recorded with the answer
// (the console and the admin API take one).
func (g *Gate) Answer(ctx context.Context, id string, approve bool, by, comment string) (store.Confirmation, error) {
	c, err := decide(ctx, g.store, id, approve, by, comment)
	if err == nil {
		g.wakeAll(id)
	}
	return c, err
}

// Decide is the gate's answer path without a running gate: the command
// line writes to the store directly, so it works while hookgate is down.
// comment (may be empty) is recorded with the answer.
func Decide(ctx context.Context, st *store.Store, id string, approve bool, by, comment string) (store.Confirmation, error) {
	return decide(ctx, st, id, approve, by, comment)
}

func decide(ctx context.Context, st *store.Store, id string, approve bool, by, comment string) (store.Confirmation, error) {
	c, err := st.GetConfirmation(ctx, id)
	if err != nil {
		return store.Confirmation{}, err
	}
	status := store.Rejected
	if approve {
		status = store.Approved
	}
	// Bound to the question's own tool and arguments: an answer can never
	// release another call.
	return st.DecideConfirmation(ctx, store.Verdict{ID: id, Status: status, Tool: c.Tool, ArgsHash: c.ArgsHash, By: by, Comment: comment})
}

// Get returns question id.
func (g *Gate) Get(ctx context.Context, id string) (store.Confirmation, error) {
	return g.store.GetConfirmation(ctx, id)
}

// Recent returns every pending question and the newest ended of at most
// ended of them (answered or expired), newest first.
func (g *Gate) Recent(ctx context.Context, ended int) ([]store.Confirmation, error) {
	pending, err := g.store.ListConfirmations(ctx, store.Pending, 0)
	if err != nil {
		return nil, err
	}
	done, err := g.store.ListEndedConfirmations(ctx, ended)
	if err != nil {
		return nil, err
	}
	return append(pending, done...), nil
}

// List returns the questions with the given status ("" for all).
func (g *Gate) List(ctx context.Context, status store.ConfirmationStatus) ([]store.Confirmation, error) {
	return g.store.ListConfirmations(ctx, status, 0)
}

// Callback handles a channel's callback: it verifies it (signature,
// freshness, conversation), answers handshakes, and records the person's
// answer, by the channel's user id. It returns the status and body to send
// back; details of a refusal stay in the log.
func (g *Gate) Callback(ctx context.Context, channel string, header http.Header, body []byte) (int, []byte) {
	ch, ok := g.channels()[channel]
	if !ok {
		return http.StatusNotFound, []byte(`{"error":"no such channel"}`)
	}
	d, reply, err := ch.ParseCallback(header, body)
	if err != nil {
		g.log.Warn("channel callback refused", "channel", channel, "err", err)
		return channels.StatusOf(err), []byte(`{"error":"callback refused"}`)
	}
	if d.Empty() {
		return http.StatusOK, reply
	}
	c, err := g.store.GetConfirmation(ctx, d.ApprovalID)
	if err == nil && postedTo(c) != channel {
		err = ErrWrongChannel
	}
	if err == nil {
		_, err = g.Decide(ctx, d.ApprovalID, d.Approved, d.UserID)
	}
	if err != nil {
		g.log.Warn("channel answer not recorded", "channel", channel, "approval", d.ApprovalID, "err", err)
	}
	if len(reply) == 0 {
		reply = []byte(`{}`)
	}
	return http.StatusOK, reply
}

// postedTo is the channel a question's card went to.
func postedTo(c store.Confirmation) string {
	var p payload
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return ""
	}
	return p.Channel
}

// Describe renders a question for people (admin API, command line).
func Describe(c store.Confirmation) map[string]any {
	var p payload
	_ = json.Unmarshal([]byte(c.Payload), &p)
	out := map[string]any{
		"id": c.ID, "status": c.Status, "tool": c.Tool, "session": c.SessionID,
		"arguments": p.Args, "hook": p.Hook, "channel": p.Channel,
		"created_at": c.CreatedAt, "expires_at": c.ExpiresAt,
	}
	if !c.RespondedAt.IsZero() {
		out["responded_at"] = c.RespondedAt
	}
	if c.RespondedBy != "" {
		out["responded_by"] = c.RespondedBy
	}
	if c.Comment != "" {
		out["comment"] = c.Comment
	}
	return out
}

// String is a one-line view for logs and the command line.
func String(c store.Confirmation) string {
	return fmt.Sprintf("%s  %-8s  %-12s  session=%s  expires=%s", c.ID, c.Status, c.Tool, c.SessionID, c.ExpiresAt.Format("2006-01-02T15:04:05Z07:00"))
}
