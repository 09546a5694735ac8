package channels

import (
	"context"
	"net/http"
	"time"
)

// Kinds of channel, as written in the configuration's type key.
const (
	KindWebhook = "webhook"
	KindSlack   = "slack"
	KindFeishu  = "feishu"
)

// FreshnessWindow is how far a callback's signed timestamp may be from the
// clock, either way, before the callback is refused as stale. It is the
// window Slack documents and the one hookgate's webhook signature uses.
const FreshnessWindow = 5 * time.Minute

// MaxCallbackBytes is the largest callback body ParseCallback accepts. The
// admin listener should stop reading there (and answer 413) rather than
// buffer more.
const MaxCallbackBytes = 64 << 10

// Channel is one way of reaching people. Implementations are safe for
// concurrent use.
type Channel interface {
	// Name is the channel's name in the configuration.
	Name() string
	// Kind is KindWebhook, KindSlack or KindFeishu.
	Kind() string

	// SendCard posts an approval card: the title, the fields in order, and
	// approve and reject actions carrying card.ApprovalID. It returns where
	// the card landed. An error means the card may not have been posted;
	// retrying may post it twice (Feishu deduplicates by approval id).
	SendCard(ctx context.Context, card Card) (MessageRef, error)

	// SendMessage posts text, rendered as plain text.
	SendMessage(ctx context.Context, text string) error

	// ParseCallback verifies and reads one inbound callback: header and the
	// raw, unparsed body exactly as received. Its outcomes:
	//
	//   - (d, reply, nil) with !d.Empty(): a genuine decision. Record it
	//     (claim the approval), then answer 200 with reply.
	//   - (d, reply, nil) with d.Empty(): a handshake (Feishu's
	//     url_verification). Answer 200 with reply; there is nothing to
	//     record.
	//   - (_, nil, err): refuse. StatusOf(err) is the HTTP status to answer
	//     with; the body should not echo err.
	//
	// A non-empty reply is JSON; an empty reply is an empty 200.
	ParseCallback(header http.Header, body []byte) (Decision, []byte, error)

	// Close releases idle connections. The channel must not be used after.
	Close()
}

// Card is an approval request as a person sees it. Every string is shown as
// plain text and has already been redacted by the caller; long values are
// cut with a marker.
type Card struct {
	// ApprovalID identifies the approval; the actions carry it back. It is
	// 1 to 128 characters from [A-Za-z0-9._:-] (a UUID fits).
	ApprovalID string
	// Title is the card's heading ("Approval required" when empty).
	Title string
	// Fields are shown in order, each a label and a value (tool, session,
	// an arguments preview, the expiry).
	Fields []Field
}

// Field is one labelled value on a card.
type Field struct {
	Label string
	Value string
}

// MessageRef says where a card landed.
type MessageRef struct {
	// Channel is the hookgate channel's name.
	Channel string
	// Conversation is the Slack channel id or Feishu chat id ("" for a
	// webhook).
	Conversation string
	// ID is the Slack message ts or Feishu message id ("" for a webhook).
	ID string
}

// Decision is what a verified callback says: who decided what.
type Decision struct {
	// ApprovalID is the approval the action carried.
	ApprovalID string
	// Approved is true for approve, false for reject.
	Approved bool
	// UserID is the platform's id of the person who answered (Slack user
	// id, Feishu open_id, the webhook body's user). It is what an approval
	// record names as responded_by.
	UserID string
	// UserName is a display name when the platform sends one; never use
	// it as an identity.
	UserName string
	// Channel is the hookgate channel that verified the callback. Check it
	// against the channel the card was posted to before honouring the
	// decision.
	Channel string
	// Conversation is the Slack channel id or Feishu chat id the action
	// came from ("" for a webhook).
	Conversation string
}

// Empty reports whether d carries no decision (a handshake).
func (d Decision) Empty() bool { return d.ApprovalID == "" }

// Verdict is "approve" or "reject".
func (d Decision) Verdict() string {
	if d.Approved {
		return verdictApprove
	}
	return verdictReject
}

// The two actions every card offers, as they travel in callbacks.
const (
	verdictApprove = "approve"
	verdictReject  = "reject"
)
