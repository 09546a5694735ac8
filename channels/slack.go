package channels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/hookgate/hookgate/config"
)

// defaultSlackAPI is the Web API base used when the channel sets no url; a
// url replacing it (a test server, a relay) includes the /api part.
const defaultSlackAPI = "https://slack.com/api"

// Slack action ids of the two buttons; the button's value is the approval
// id.
const (
	slackApproveAction = "hookgate_approve"
	slackRejectAction  = "hookgate_reject"
	slackActionsBlock  = "hookgate_approval"
)

// slack posts Block Kit messages with chat.postMessage as a bot and reads
// block_actions callbacks verified with the app's signing secret.
type slack struct {
	name          string
	api           *url.URL
	botToken      string
	signingSecret string
	conversation  string
	client        *http.Client
	now           func() time.Time
	seen          *seenSet
}

var _ Channel = (*slack)(nil)

func newSlack(c config.Channel, o options) (*slack, error) {
	base := c.URL
	if base == "" {
		base = defaultSlackAPI
	}
	u, err := parseBaseURL(base)
	if err != nil {
		return nil, fmt.Errorf("slack API %w", err)
	}
	if c.BotToken == "" {
		return nil, errors.New("slack channel needs bot_token_env")
	}
	if c.Channel == "" {
		return nil, errors.New("slack channel needs channel (a channel id)")
	}
	return &slack{
		name: c.Name, api: u, botToken: c.BotToken, signingSecret: c.SigningSecret,
		conversation: c.Channel, client: o.client, now: o.now, seen: newSeenSet(),
	}, nil
}

func (s *slack) Name() string { return s.name }
func (s *slack) Kind() string { return KindSlack }
func (s *slack) Close()       { s.client.CloseIdleConnections() }

// Block Kit, as much of it as hookgate sends. Caller text only ever lands
// in plain_text objects and rich text "text" elements, which Slack renders
// literally: no mentions, links or formatting.
type (
	slackMessage struct {
		Channel     string       `json:"channel"`
		Text        string       `json:"text"` // notification fallback, escaped
		Blocks      []slackBlock `json:"blocks"`
		UnfurlLinks bool         `json:"unfurl_links"`
		UnfurlMedia bool         `json:"unfurl_media"`
	}
	slackBlock struct {
		Type     string          `json:"type"`
		BlockID  string          `json:"block_id,omitempty"`
		Text     *slackText      `json:"text,omitempty"`
		Elements json.RawMessage `json:"elements,omitempty"`
	}
	slackText struct {
		Type  string `json:"type"` // plain_text
		Text  string `json:"text"`
		Emoji bool   `json:"emoji"` // false: :shortcodes: stay text
	}
	slackRichText struct {
		Type     string          `json:"type"` // rich_text_section | rich_text_preformatted
		Elements []slackRichElem `json:"elements"`
	}
	slackRichElem struct {
		Type  string          `json:"type"` // text
		Text  string          `json:"text"`
		Style *slackRichStyle `json:"style,omitempty"`
	}
	slackRichStyle struct {
		Bold bool `json:"bold,omitempty"`
	}
	slackButton struct {
		Type     string    `json:"type"` // button
		ActionID string    `json:"action_id"`
		Text     slackText `json:"text"`
		Style    string    `json:"style"`
		Value    string    `json:"value"`
	}
	slackPostResponse struct {
		OK      bool   `json:"ok"`
		Error   string `json:"error"`
		Channel string `json:"channel"`
		TS      string `json:"ts"`
	}
)

func plain(s string) *slackText { return &slackText{Type: "plain_text", Text: s} }

// cardMessage renders a card: a header, one rich text block holding each
// field's label (bold) and value (preformatted), and the two buttons.
func (s *slack) cardMessage(c Card) (slackMessage, error) {
	blocks := []slackBlock{{Type: "header", Text: plain(c.Title)}}
	if len(c.Fields) > 0 {
		var rich []slackRichText
		for _, f := range c.Fields {
			if f.Label != "" {
				rich = append(rich, slackRichText{Type: "rich_text_section", Elements: []slackRichElem{
					{Type: "text", Text: f.Label, Style: &slackRichStyle{Bold: true}},
				}})
			}
			v := f.Value
			if v == "" {
				v = "(empty)" // Slack refuses empty text elements
			}
			rich = append(rich, slackRichText{Type: "rich_text_preformatted", Elements: []slackRichElem{{Type: "text", Text: v}}})
		}
		raw, err := json.Marshal(rich)
		if err != nil {
			return slackMessage{}, err
		}
		blocks = append(blocks, slackBlock{Type: "rich_text", Elements: raw})
	}
	buttons, err := json.Marshal([]slackButton{
		{Type: "button", ActionID: slackApproveAction, Text: *plain(approveLabel), Style: "primary", Value: c.ApprovalID},
		{Type: "button", ActionID: slackRejectAction, Text: *plain(rejectLabel), Style: "danger", Value: c.ApprovalID},
	})
	if err != nil {
		return slackMessage{}, err
	}
	blocks = append(blocks, slackBlock{Type: "actions", BlockID: slackActionsBlock, Elements: buttons})
	return slackMessage{Channel: s.conversation, Text: slackEscape(c.Title), Blocks: blocks}, nil
}

func (s *slack) SendCard(ctx context.Context, card Card) (MessageRef, error) {
	c, err := normalizeCard(card)
	if err != nil {
		return MessageRef{}, fmt.Errorf("channel %q: card: %w", s.name, err)
	}
	msg, err := s.cardMessage(c)
	if err != nil {
		return MessageRef{}, fmt.Errorf("channel %q: card: %w", s.name, err)
	}
	resp, err := s.post(ctx, msg)
	if err != nil {
		return MessageRef{}, err
	}
	return MessageRef{Channel: s.name, Conversation: resp.Channel, ID: resp.TS}, nil
}

func (s *slack) SendMessage(ctx context.Context, text string) error {
	t := clip(text, maxTextChars)
	if t == "" {
		t = " "
	}
	_, err := s.post(ctx, slackMessage{
		Channel: s.conversation, Text: slackEscape(t),
		Blocks: []slackBlock{{Type: "section", Text: plain(t)}},
	})
	return err
}

// post calls chat.postMessage. Slack answers 200 with ok:false for most
// failures, and 429 with Retry-After when rate limited.
func (s *slack) post(ctx context.Context, msg slackMessage) (slackPostResponse, error) {
	const op = "chat.postMessage"
	body, err := json.Marshal(msg)
	if err != nil {
		return slackPostResponse{}, fmt.Errorf("channel %q: %s: encoding: %w", s.name, op, err)
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+s.botToken)
	ex, err := postJSON(ctx, s.client, endpoint(s.api, "/chat.postMessage"), h, body)
	if err != nil {
		return slackPostResponse{}, fmt.Errorf("channel %q: %s: %w", s.name, op, err)
	}
	var resp slackPostResponse
	jsonErr := json.Unmarshal(ex.body, &resp)
	if ex.status != http.StatusOK || jsonErr != nil || !resp.OK {
		status := ex.status
		if status == http.StatusOK {
			status = 0
		}
		code := resp.Error
		if jsonErr != nil && ex.status == http.StatusOK {
			code = "unreadable response"
		}
		e := newAPIError(s.name, op, status, clip(code, 80), "")
		e.RetryAfter = ex.retryAfter
		return slackPostResponse{}, e
	}
	return resp, nil
}
