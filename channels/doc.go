// Package channels is how hookgate talks to people: hooks decide when,
// channels know how.
//
// A Channel sends approval cards (a title, labelled fields and two actions,
// approve and reject, that carry the approval's id), sends plain messages,
// and turns an inbound callback (a button pressed in a chat client, a
// decision posted by a webhook receiver) into a verified Decision. Three
// kinds exist, each in files of its own: a generic signed webhook
// (webhook.go), a Slack app (slack*.go) and a Feishu (Lark) app bot
// (feishu*.go).
//
// The package knows nothing of policy, hooks, the store or the proxy. The
// approval gate decides that a card is needed and waits for a decision; the
// admin listener reads a callback's headers and body (capped at
// MaxCallbackBytes) and hands them to ParseCallback; whoever claims the
// approval in the store checks that the decision came through the channel
// the card was posted to. Everything a card shows arrives already redacted:
// a channel renders caller text as plain text (never as markup), so an
// argument preview cannot mention everyone, hide a link or forge a button.
//
// # Callbacks
//
// Every callback is authenticated before it is believed: an HMAC or digest
// over the raw body and a timestamp, compared in constant time, the
// timestamp within FreshnessWindow of the clock, and each signature
// accepted once per process (a replayed request is refused). A Slack or
// Feishu callback from a conversation other than the configured one is
// refused, so forwarding a card does not forward the right to answer it.
// Cross-instance replays are harmless because an approval is claimed
// atomically in the store.
//
// Secrets never appear in errors: an error names the channel, the operation,
// the API's status or error code, and of a URL only its scheme and host.
//
// # Wiring
//
// New builds every configured channel once (secrets already resolved by
// the config package); Close releases them when a reload retires them.
// For Slack and Feishu the channel's url is the API base (defaults: the
// public Slack Web API including /api, and the public Feishu Open Platform
// host), so tests point it at a local server. Callbacks are meant to reach
// the admin listener at POST /callbacks/{channel}: read at most
// MaxCallbackBytes, call ParseCallback with the headers and raw body, answer
// StatusOf(err) on error, and on a decision claim the approval (bound to
// the channel that posted its card) before answering 200 with the reply.
//
// # Webhook signature
//
// A webhook receives JSON POSTs,
//
//	{"type": "approval_request", "channel": "ops", "approval_id": "...",
//	 "title": "...", "fields": [{"label": "...", "value": "..."}],
//	 "actions": ["approve", "reject"]}
//	{"type": "message", "channel": "ops", "text": "..."}
//
// signed when the channel has a secret. Outgoing requests and incoming
// callbacks carry
//
//	X-Hookgate-Timestamp: <unix seconds>
//	X-Hookgate-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>
//
// and a callback's body is
//
//	{"approval_id": "...", "decision": "approve" | "reject", "user": "..."}
package channels
