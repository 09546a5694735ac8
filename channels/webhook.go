package channels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hookgate/hookgate/config"
)

// Headers of hookgate's webhook signature, outgoing and incoming.
const (
	HeaderTimestamp = "X-Hookgate-Timestamp"
	HeaderSignature = "X-Hookgate-Signature"
	signaturePrefix = "sha256="
)

// webhook is a generic JSON webhook: cards and messages are POSTed to the
// configured URL, signed when a secret is set; decisions come back signed
// the same way.
type webhook struct {
	name   string
	target *url.URL
	secret string
	client *http.Client
	now    func() time.Time
	seen   *seenSet
}

var _ Channel = (*webhook)(nil)

func newWebhook(c config.Channel, o options) (*webhook, error) {
	u, err := parseBaseURL(c.URL)
	if err != nil {
		return nil, fmt.Errorf("webhook %w", err)
	}
	return &webhook{name: c.Name, target: u, secret: c.Secret, client: o.client, now: o.now, seen: newSeenSet()}, nil
}

func (w *webhook) Name() string { return w.name }
func (w *webhook) Kind() string { return KindWebhook }
func (w *webhook) Close()       { w.client.CloseIdleConnections() }

// webhookCard is the JSON body of an outgoing card.
type webhookCard struct {
	Type       string         `json:"type"` // approval_request
	Channel    string         `json:"channel"`
	ApprovalID string         `json:"approval_id"`
	Title      string         `json:"title"`
	Fields     []webhookField `json:"fields"`
	Actions    []string       `json:"actions"`
}

type webhookField struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// webhookMessage is the JSON body of an outgoing message.
type webhookMessage struct {
	Type    string `json:"type"` // message
	Channel string `json:"channel"`
	Text    string `json:"text"`
}

// webhookDecision is the JSON body of an incoming callback.
type webhookDecision struct {
	ApprovalID string `json:"approval_id"`
	Decision   string `json:"decision"`
	User       string `json:"user"`
}

func (w *webhook) SendCard(ctx context.Context, card Card) (MessageRef, error) {
	c, err := normalizeCard(card)
	if err != nil {
		return MessageRef{}, fmt.Errorf("channel %q: card: %w", w.name, err)
	}
	body := webhookCard{
		Type: "approval_request", Channel: w.name, ApprovalID: c.ApprovalID, Title: c.Title,
		Fields: make([]webhookField, len(c.Fields)), Actions: []string{verdictApprove, verdictReject},
	}
	for i, f := range c.Fields {
		body.Fields[i] = webhookField(f)
	}
	if err := w.post(ctx, "send card", body); err != nil {
		return MessageRef{}, err
	}
	return MessageRef{Channel: w.name}, nil
}

func (w *webhook) SendMessage(ctx context.Context, text string) error {
	return w.post(ctx, "send message", webhookMessage{Type: "message", Channel: w.name, Text: clip(text, maxTextChars)})
}

// post signs and sends one JSON body; any 2xx is success.
func (w *webhook) post(ctx context.Context, op string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("channel %q: %s: encoding: %w", w.name, op, err)
	}
	h := http.Header{}
	if w.secret != "" {
		ts := strconv.FormatInt(w.now().Unix(), 10)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, signaturePrefix+webhookSignature(w.secret, ts, body))
	}
	ex, err := postJSON(ctx, w.client, w.target.String(), h, body)
	if err != nil {
		return fmt.Errorf("channel %q: %s: %w", w.name, op, err)
	}
	if ex.status < 200 || ex.status > 299 {
		e := newAPIError(w.name, op, ex.status, "", "")
		e.RetryAfter = ex.retryAfter
		return e
	}
	return nil
}

// webhookSignature is hex(HMAC-SHA256(secret, timestamp + "." + body)).
// The dot keeps the timestamp's end unambiguous.
func webhookSignature(secret, ts string, body []byte) string {
	return hmacSHA256Hex(secret, []byte(ts), []byte{'.'}, body)
}

// ParseCallback verifies the signature and timestamp, then reads the
// decision. The reply is {"ok":true}.
func (w *webhook) ParseCallback(header http.Header, body []byte) (Decision, []byte, error) {
	if w.secret == "" {
		return Decision{}, nil, callbackError(w.name, ErrCallbacksDisabled, "no secret_env configured")
	}
	if len(body) > MaxCallbackBytes {
		return Decision{}, nil, callbackError(w.name, ErrTooLarge, "")
	}
	ts := header.Get(HeaderTimestamp)
	sig, ok := strings.CutPrefix(header.Get(HeaderSignature), signaturePrefix)
	if !ok || ts == "" {
		return Decision{}, nil, callbackError(w.name, ErrUnauthenticated, "signature or timestamp header missing")
	}
	if !equalHexSig(sig, webhookSignature(w.secret, ts, body)) {
		return Decision{}, nil, callbackError(w.name, ErrUnauthenticated, "signature mismatch")
	}
	now := w.now()
	if err := checkFresh(ts, now); err != nil {
		return Decision{}, nil, freshnessError(w.name, err)
	}
	var in webhookDecision
	if err := json.Unmarshal(body, &in); err != nil {
		return Decision{}, nil, callbackError(w.name, ErrMalformed, "body is not a JSON decision")
	}
	d, err := decisionFrom(in.ApprovalID, in.Decision)
	if err != nil {
		return Decision{}, nil, callbackError(w.name, ErrMalformed, err.Error())
	}
	if in.User == "" || len(in.User) > 256 {
		return Decision{}, nil, callbackError(w.name, ErrMalformed, "user missing or longer than 256 bytes")
	}
	if !w.seen.first(strings.ToLower(sig), now) {
		return Decision{}, nil, callbackError(w.name, ErrReplayed, "")
	}
	d.UserID, d.Channel = in.User, w.name
	return d, []byte(`{"ok":true}`), nil
}

// freshnessError wraps a checkFresh failure: stale, or a timestamp that is
// not one (which is an authentication failure, not staleness).
func freshnessError(channel string, err error) error {
	if errors.Is(err, ErrStale) {
		return callbackError(channel, ErrStale, "")
	}
	return callbackError(channel, ErrUnauthenticated, err.Error())
}

// decisionFrom checks an approval id and a verdict word.
func decisionFrom(approvalID, verdict string) (Decision, error) {
	if err := checkApprovalID(approvalID); err != nil {
		return Decision{}, err
	}
	switch verdict {
	case verdictApprove:
		return Decision{ApprovalID: approvalID, Approved: true}, nil
	case verdictReject:
		return Decision{ApprovalID: approvalID}, nil
	default:
		return Decision{}, fmt.Errorf("decision %q is neither approve nor reject", clip(verdict, 32))
	}
}
