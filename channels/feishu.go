package channels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hookgate/hookgate/config"
)

// defaultFeishuAPI is the Open Platform base used when the channel sets no
// url (Lark's international base is set through url).
const defaultFeishuAPI = "https://open.feishu.cn"

// maxFeishuUUID is the longest uuid the send API accepts for
// deduplication.
const maxFeishuUUID = 50

// Feishu error codes that mean the tenant_access_token was refused: the
// cached token is dropped and the call tried once more with a fresh one.
var feishuTokenCodes = map[int]bool{99991661: true, 99991663: true, 99991668: true}

// feishu sends JSON 2.0 cards as an app bot (group custom bots cannot
// receive card callbacks) and reads card.action.trigger callbacks.
type feishu struct {
	name              string
	api               *url.URL
	appID             string
	chatID            string
	verificationToken string
	encryptKey        string
	client            *http.Client
	now               func() time.Time
	tokens            *tenantToken
	seen              *seenSet
}

var _ Channel = (*feishu)(nil)

func newFeishu(c config.Channel, o options) (*feishu, error) {
	base := c.URL
	if base == "" {
		base = defaultFeishuAPI
	}
	u, err := parseBaseURL(base)
	if err != nil {
		return nil, fmt.Errorf("feishu API %w", err)
	}
	switch {
	case c.AppID == "":
		return nil, errors.New("feishu channel needs app_id")
	case c.AppSecret == "":
		return nil, errors.New("feishu channel needs app_secret_env")
	case c.Channel == "":
		return nil, errors.New("feishu channel needs channel (a chat id)")
	}
	return &feishu{
		name: c.Name, api: u, appID: c.AppID, chatID: c.Channel,
		verificationToken: c.VerificationToken, encryptKey: c.EncryptKey,
		client: o.client, now: o.now, seen: newSeenSet(),
		tokens: newTenantToken(c.Name, u, c.AppID, c.AppSecret, o.client, o.now),
	}, nil
}

func (f *feishu) Name() string { return f.name }
func (f *feishu) Kind() string { return KindFeishu }
func (f *feishu) Close()       { f.client.CloseIdleConnections() }

// Card JSON 2.0, as much of it as hookgate sends. Caller text only lands in
// plain_text, which Feishu renders literally (no @all, links or markdown).
type (
	feishuCard struct {
		Schema string           `json:"schema"`
		Config feishuCardConfig `json:"config"`
		Header *feishuHeader    `json:"header,omitempty"`
		Body   feishuCardBody   `json:"body"`
	}
	feishuCardConfig struct {
		// EnableForward false: a forwarded card's buttons would be
		// answered from another chat, which callbacks refuse anyway.
		EnableForward bool `json:"enable_forward"`
		UpdateMulti   bool `json:"update_multi"`
	}
	feishuHeader struct {
		Title    feishuText `json:"title"`
		Template string     `json:"template"`
	}
	feishuCardBody struct {
		Elements []any `json:"elements"`
	}
	feishuText struct {
		Tag     string `json:"tag"` // plain_text
		Content string `json:"content"`
	}
	feishuDiv struct {
		Tag  string     `json:"tag"` // div
		Text feishuText `json:"text"`
	}
	feishuColumnSet struct {
		Tag     string         `json:"tag"` // column_set
		Columns []feishuColumn `json:"columns"`
	}
	feishuColumn struct {
		Tag      string `json:"tag"` // column
		Width    string `json:"width"`
		Elements []any  `json:"elements"`
	}
	feishuButton struct {
		Tag       string           `json:"tag"` // button
		Text      feishuText       `json:"text"`
		Type      string           `json:"type"`
		Behaviors []feishuBehavior `json:"behaviors"`
	}
	feishuBehavior struct {
		Type  string            `json:"type"` // callback
		Value feishuActionValue `json:"value"`
	}
	// feishuActionValue travels in the button and comes back in
	// event.action.value.
	feishuActionValue struct {
		ApprovalID string `json:"approval_id"`
		Decision   string `json:"decision"`
	}
)

func fplain(s string) feishuText { return feishuText{Tag: "plain_text", Content: s} }

func fdiv(s string) feishuDiv { return feishuDiv{Tag: "div", Text: fplain(s)} }

func fbutton(label, kind, id, verdict string) feishuColumn {
	return feishuColumn{Tag: "column", Width: "auto", Elements: []any{feishuButton{
		Tag: "button", Text: fplain(label), Type: kind,
		Behaviors: []feishuBehavior{{Type: "callback", Value: feishuActionValue{ApprovalID: id, Decision: verdict}}},
	}}}
}

// cardJSON renders a card: the title in the header, each field as its
// label and its value, and the two buttons side by side.
func cardJSON(c Card) ([]byte, error) {
	elems := make([]any, 0, 2*len(c.Fields)+1)
	for _, f := range c.Fields {
		if f.Label != "" {
			elems = append(elems, fdiv(f.Label+":"))
		}
		v := f.Value
		if v == "" {
			v = "(empty)"
		}
		elems = append(elems, fdiv(v))
	}
	elems = append(elems, feishuColumnSet{Tag: "column_set", Columns: []feishuColumn{
		fbutton(approveLabel, "primary_filled", c.ApprovalID, verdictApprove),
		fbutton(rejectLabel, "danger", c.ApprovalID, verdictReject),
	}})
	return json.Marshal(feishuCard{
		Schema: "2.0",
		Config: feishuCardConfig{UpdateMulti: true},
		Header: &feishuHeader{Title: fplain(c.Title), Template: "orange"},
		Body:   feishuCardBody{Elements: elems},
	})
}

// textCardJSON renders a plain message as a card holding one plain_text
// block: a text message would read <at user_id="all"> as a mention.
func textCardJSON(text string) ([]byte, error) {
	return json.Marshal(feishuCard{
		Schema: "2.0",
		Config: feishuCardConfig{UpdateMulti: true},
		Body:   feishuCardBody{Elements: []any{fdiv(text)}},
	})
}

func (f *feishu) SendCard(ctx context.Context, card Card) (MessageRef, error) {
	c, err := normalizeCard(card)
	if err != nil {
		return MessageRef{}, fmt.Errorf("channel %q: card: %w", f.name, err)
	}
	content, err := cardJSON(c)
	if err != nil {
		return MessageRef{}, fmt.Errorf("channel %q: card: %w", f.name, err)
	}
	uuid := c.ApprovalID // a retried send within the hour posts one card
	if len(uuid) > maxFeishuUUID {
		uuid = ""
	}
	id, err := f.send(ctx, "send card", content, uuid)
	if err != nil {
		return MessageRef{}, err
	}
	return MessageRef{Channel: f.name, Conversation: f.chatID, ID: id}, nil
}

func (f *feishu) SendMessage(ctx context.Context, text string) error {
	t := clip(text, maxTextChars)
	if t == "" {
		t = " "
	}
	content, err := textCardJSON(t)
	if err != nil {
		return fmt.Errorf("channel %q: message: %w", f.name, err)
	}
	_, err = f.send(ctx, "send message", content, "")
	return err
}

// send posts an interactive message to the chat with im/v1/messages and
// returns its message id. A refused token is dropped and the call made once
// more with a fresh one.
func (f *feishu) send(ctx context.Context, op string, content []byte, uuid string) (string, error) {
	body, err := json.Marshal(struct {
		ReceiveID string `json:"receive_id"`
		MsgType   string `json:"msg_type"`
		Content   string `json:"content"`
		UUID      string `json:"uuid,omitempty"`
	}{f.chatID, "interactive", string(content), uuid})
	if err != nil {
		return "", fmt.Errorf("channel %q: %s: encoding: %w", f.name, op, err)
	}
	target := endpoint(f.api, "/open-apis/im/v1/messages?receive_id_type=chat_id")
	for attempt := 0; ; attempt++ {
		tok, err := f.tokens.get(ctx)
		if err != nil {
			return "", err
		}
		h := http.Header{}
		h.Set("Authorization", "Bearer "+tok)
		ex, err := postJSON(ctx, f.client, target, h, body)
		if err != nil {
			return "", fmt.Errorf("channel %q: %s: %w", f.name, op, err)
		}
		var resp struct {
			Code int    `json:"code"`
			Msg  string `json:"msg"`
			Data struct {
				MessageID string `json:"message_id"`
			} `json:"data"`
		}
		jsonErr := json.Unmarshal(ex.body, &resp)
		if ex.status == http.StatusOK && jsonErr == nil && resp.Code == 0 {
			return resp.Data.MessageID, nil
		}
		if attempt == 0 && (ex.status == http.StatusUnauthorized || feishuTokenCodes[resp.Code]) {
			f.tokens.invalidate(ctx, tok)
			continue
		}
		status := ex.status
		if status == http.StatusOK {
			status = 0
		}
		code, msg := "", resp.Msg
		if jsonErr == nil && resp.Code != 0 {
			code = strconv.Itoa(resp.Code)
		} else if jsonErr != nil && ex.status == http.StatusOK {
			msg = "unreadable response"
		}
		e := newAPIError(f.name, op, status, code, msg)
		e.RetryAfter = ex.retryAfter
		return "", e
	}
}
