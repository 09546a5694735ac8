package channels

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// Headers of Slack's request signature.
const (
	slackSignatureHeader = "X-Slack-Signature"
	slackTimestampHeader = "X-Slack-Request-Timestamp"
	slackSignatureV0     = "v0="
)

// slackInteraction is the part of a block_actions payload hookgate reads.
type slackInteraction struct {
	Type string `json:"type"`
	User struct {
		ID       string `json:"id"`
		Username string `json:"username"`
		Name     string `json:"name"`
	} `json:"user"`
	Channel struct {
		ID string `json:"id"`
	} `json:"channel"`
	Container struct {
		ChannelID string `json:"channel_id"`
	} `json:"container"`
	Actions []struct {
		ActionID string `json:"action_id"`
		BlockID  string `json:"block_id"`
		Value    string `json:"value"`
	} `json:"actions"`
}

// ParseCallback verifies Slack's v0 signature (HMAC-SHA256 with the signing
// secret over "v0:" + timestamp + ":" + the raw body) and timestamp, then
// reads the form field payload as a block_actions interaction. The reply
// is empty: Slack wants only a prompt 200.
func (s *slack) ParseCallback(header http.Header, body []byte) (Decision, []byte, error) {
	if s.signingSecret == "" {
		return Decision{}, nil, callbackError(s.name, ErrCallbacksDisabled, "no signing_secret_env configured")
	}
	if len(body) > MaxCallbackBytes {
		return Decision{}, nil, callbackError(s.name, ErrTooLarge, "")
	}
	ts := header.Get(slackTimestampHeader)
	sig, ok := strings.CutPrefix(header.Get(slackSignatureHeader), slackSignatureV0)
	if !ok || ts == "" {
		return Decision{}, nil, callbackError(s.name, ErrUnauthenticated, "signature or timestamp header missing")
	}
	want := hmacSHA256Hex(s.signingSecret, []byte("v0:"), []byte(ts), []byte{':'}, body)
	if !equalHexSig(sig, want) {
		return Decision{}, nil, callbackError(s.name, ErrUnauthenticated, "signature mismatch")
	}
	now := s.now()
	if err := checkFresh(ts, now); err != nil {
		return Decision{}, nil, freshnessError(s.name, err)
	}

	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("payload") == "" {
		return Decision{}, nil, callbackError(s.name, ErrMalformed, "no payload form field")
	}
	var in slackInteraction
	if err := json.Unmarshal([]byte(form.Get("payload")), &in); err != nil {
		return Decision{}, nil, callbackError(s.name, ErrMalformed, "payload is not JSON")
	}
	if in.Type != "block_actions" {
		return Decision{}, nil, callbackError(s.name, ErrMalformed, "payload type is not block_actions")
	}
	if len(in.Actions) != 1 {
		return Decision{}, nil, callbackError(s.name, ErrMalformed, "want exactly one action")
	}
	a := in.Actions[0]
	var verdict string
	switch a.ActionID {
	case slackApproveAction:
		verdict = verdictApprove
	case slackRejectAction:
		verdict = verdictReject
	default:
		return Decision{}, nil, callbackError(s.name, ErrMalformed, "action is not hookgate's approve or reject")
	}
	d, err := decisionFrom(a.Value, verdict)
	if err != nil {
		return Decision{}, nil, callbackError(s.name, ErrMalformed, err.Error())
	}
	if in.User.ID == "" {
		return Decision{}, nil, callbackError(s.name, ErrMalformed, "payload has no user.id")
	}
	conv := in.Channel.ID
	if conv == "" {
		conv = in.Container.ChannelID
	}
	if conv != s.conversation {
		return Decision{}, nil, callbackError(s.name, ErrForeign, "action came from another conversation")
	}
	if !s.seen.first(strings.ToLower(sig), now) {
		return Decision{}, nil, callbackError(s.name, ErrReplayed, "")
	}
	d.UserID, d.Channel, d.Conversation = in.User.ID, s.name, conv
	d.UserName = in.User.Username
	if d.UserName == "" {
		d.UserName = in.User.Name
	}
	return d, nil, nil
}
