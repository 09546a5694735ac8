package channels

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
)

const (
	slackBotToken      = "xoxb-test-bot-token"
	slackSigningSecret = "slack-signing-secret-test"
	slackChannelID     = "C0123456789"
)

// fakeSlack plays the Web API's chat.postMessage: it checks the bot token,
// keeps each posted message and answers with reply (or ok:true).
type fakeSlack struct {
	*httptest.Server
	mu    sync.Mutex
	posts []map[string]any
	reply func(w http.ResponseWriter) bool // true: handled
}

func newFakeSlack(t *testing.T) *fakeSlack {
	t.Helper()
	f := &fakeSlack{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat.postMessage" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+slackBotToken {
			_, _ = io.WriteString(w, `{"ok":false,"error":"invalid_auth"}`)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			_, _ = io.WriteString(w, `{"ok":false,"error":"invalid_form_data"}`)
			return
		}
		var msg map[string]any
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			_, _ = io.WriteString(w, `{"ok":false,"error":"invalid_json"}`)
			return
		}
		f.mu.Lock()
		f.posts = append(f.posts, msg)
		reply := f.reply
		f.mu.Unlock()
		if reply != nil && reply(w) {
			return
		}
		_, _ = io.WriteString(w, `{"ok":true,"channel":"`+slackChannelID+`","ts":"1750000000.000100","message":{}}`)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeSlack) last(t *testing.T) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.posts) == 0 {
		t.Fatal("nothing was posted")
	}
	return f.posts[len(f.posts)-1]
}

func slackConfig(api string) config.Channel {
	return config.Channel{
		Name: "ops-slack", Type: KindSlack, URL: api, Channel: slackChannelID,
		BotToken: slackBotToken, SigningSecret: slackSigningSecret,
	}
}

// jsonPath walks decoded JSON by keys and indexes.
func jsonPath(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not an object", p)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: not an array long enough", p)
			}
			v = a[k]
		}
	}
	return v
}

func TestSlackSendCard(t *testing.T) {
	api := newFakeSlack(t)
	ch := build(t, slackConfig(api.URL+"/api"), nil)
	hostile := "<!channel> *bold* <https://evil.example|click> `x`"
	ref, err := ch.SendCard(context.Background(), Card{
		ApprovalID: "appr-1", Title: "Approve pay? <!here>",
		Fields: []Field{{"Tool", "pay"}, {"Session", "s-42"}, {"Arguments", hostile}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ref != (MessageRef{Channel: "ops-slack", Conversation: slackChannelID, ID: "1750000000.000100"}) {
		t.Errorf("ref = %+v", ref)
	}
	msg := api.last(t)
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"channel"}, slackChannelID},
		{[]any{"text"}, "Approve pay? &lt;!here&gt;"},
		{[]any{"unfurl_links"}, false},
		{[]any{"blocks", 0, "type"}, "header"},
		{[]any{"blocks", 0, "text", "type"}, "plain_text"},
		{[]any{"blocks", 0, "text", "text"}, "Approve pay? <!here>"},
		{[]any{"blocks", 1, "type"}, "rich_text"},
		{[]any{"blocks", 1, "elements", 0, "elements", 0, "text"}, "Tool"},
		{[]any{"blocks", 1, "elements", 0, "elements", 0, "style", "bold"}, true},
		{[]any{"blocks", 1, "elements", 1, "type"}, "rich_text_preformatted"},
		{[]any{"blocks", 1, "elements", 1, "elements", 0, "text"}, "pay"},
		{[]any{"blocks", 1, "elements", 5, "elements", 0, "text"}, hostile},
		{[]any{"blocks", 2, "type"}, "actions"},
		{[]any{"blocks", 2, "elements", 0, "action_id"}, slackApproveAction},
		{[]any{"blocks", 2, "elements", 0, "value"}, "appr-1"},
		{[]any{"blocks", 2, "elements", 0, "style"}, "primary"},
		{[]any{"blocks", 2, "elements", 1, "action_id"}, slackRejectAction},
		{[]any{"blocks", 2, "elements", 1, "value"}, "appr-1"},
	}
	for _, c := range checks {
		if got := jsonPath(t, msg, c.path...); got != c.want {
			t.Errorf("%v = %#v, want %#v", c.path, got, c.want)
		}
	}
}

func TestSlackSendMessage(t *testing.T) {
	api := newFakeSlack(t)
	ch := build(t, slackConfig(api.URL+"/api"), nil)
	if err := ch.SendMessage(context.Background(), "order <placed> & paid"); err != nil {
		t.Fatal(err)
	}
	msg := api.last(t)
	if got := jsonPath(t, msg, "blocks", 0, "text", "text"); got != "order <placed> & paid" {
		t.Errorf("section text = %#v", got)
	}
	if got := jsonPath(t, msg, "text"); got != "order &lt;placed&gt; &amp; paid" {
		t.Errorf("fallback text = %#v", got)
	}
}

func TestSlackSendFailures(t *testing.T) {
	tests := []struct {
		name       string
		reply      func(w http.ResponseWriter) bool
		token      string
		status     int
		code       string
		retryAfter time.Duration
	}{
		{name: "ok false", reply: func(w http.ResponseWriter) bool {
			_, _ = io.WriteString(w, `{"ok":false,"error":"channel_not_found"}`)
			return true
		}, code: "channel_not_found"},
		{name: "wrong token", token: "xoxb-wrong", code: "invalid_auth"},
		{name: "rate limited", reply: func(w http.ResponseWriter) bool {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"ok":false,"error":"ratelimited"}`)
			return true
		}, status: http.StatusTooManyRequests, code: "ratelimited", retryAfter: 30 * time.Second},
		{name: "not JSON", reply: func(w http.ResponseWriter) bool {
			_, _ = io.WriteString(w, `<html>`)
			return true
		}, code: "unreadable response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeSlack(t)
			api.reply = tt.reply
			cfg := slackConfig(api.URL + "/api")
			if tt.token != "" {
				cfg.BotToken = tt.token
			}
			ch := build(t, cfg, nil)
			_, err := ch.SendCard(context.Background(), Card{ApprovalID: "appr-1"})
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v, want an APIError", err)
			}
			if apiErr.Status != tt.status || apiErr.Code != tt.code || apiErr.RetryAfter != tt.retryAfter {
				t.Fatalf("APIError = %+v", apiErr)
			}
			noSecrets(t, err.Error(), cfg.BotToken, slackSigningSecret)
		})
	}
}

// slackPayload is a block_actions interaction as Slack documents it, with
// the fields hookgate reads and a few it ignores.
func slackPayload(actionID, value, user, channel string) string {
	return slackPayloadWith(actionID, value, user, channel, nil)
}

// slackPayloadWith is slackPayload with edit applied to the decoded
// payload before it is encoded.
func slackPayloadWith(actionID, value, user, channel string, edit func(map[string]any)) string {
	p := map[string]any{
		"type":         "block_actions",
		"user":         map[string]any{"id": user, "username": "alice", "name": "alice", "team_id": "T0001"},
		"api_app_id":   "A0001",
		"token":        "legacy-verification-token",
		"container":    map[string]any{"type": "message", "message_ts": "1750000000.000100", "channel_id": channel, "is_ephemeral": false},
		"trigger_id":   "1234.5678.abcd",
		"team":         map[string]any{"id": "T0001", "domain": "example"},
		"channel":      map[string]any{"id": channel, "name": "ops"},
		"message":      map[string]any{"type": "message", "ts": "1750000000.000100", "text": "Approve pay?"},
		"response_url": "https://hooks.example.invalid/actions/T0001/1/xyz",
		"actions": []any{map[string]any{
			"action_id": actionID, "block_id": slackActionsBlock, "type": "button", "value": value,
			"text": map[string]any{"type": "plain_text", "text": "Approve"}, "action_ts": "1750000001.000200",
		}},
	}
	if edit != nil {
		edit(p)
	}
	b, _ := json.Marshal(p)
	return url.Values{"payload": {string(b)}}.Encode()
}

// signedSlack builds Slack's signature headers for body at ts.
func signedSlack(secret string, ts time.Time, body string) http.Header {
	s := strconv.FormatInt(ts.Unix(), 10)
	h := http.Header{}
	h.Set(slackTimestampHeader, s)
	h.Set(slackSignatureHeader, "v0="+hmacSHA256Hex(secret, []byte("v0:"+s+":"+body)))
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	return h
}

func TestSlackCallback(t *testing.T) {
	approve := slackPayload(slackApproveAction, "appr-1", "U0ALICE", slackChannelID)
	twoActions := slackPayloadWith(slackApproveAction, "appr-1", "U0ALICE", slackChannelID, func(p map[string]any) {
		a := p["actions"].([]any)
		p["actions"] = append(a, a[0])
	})
	tests := []struct {
		name     string
		header   http.Header
		body     string
		noSecret bool
		want     error
		approved bool
	}{
		{name: "genuine approve", body: approve, approved: true},
		{name: "genuine reject", body: slackPayload(slackRejectAction, "appr-1", "U0ALICE", slackChannelID)},
		{name: "forged signature", header: signedSlack("guessed", t0, approve), body: approve, want: ErrUnauthenticated},
		{name: "decision flipped after signing", header: signedSlack(slackSigningSecret, t0, approve), body: slackPayload(slackRejectAction, "appr-1", "U0ALICE", slackChannelID), want: ErrUnauthenticated},
		{name: "no headers", header: http.Header{}, body: approve, want: ErrUnauthenticated},
		{name: "unknown signature version", header: func() http.Header {
			h := signedSlack(slackSigningSecret, t0, approve)
			h.Set(slackSignatureHeader, strings.Replace(h.Get(slackSignatureHeader), "v0=", "v1=", 1))
			return h
		}(), body: approve, want: ErrUnauthenticated},
		{name: "stale timestamp", header: signedSlack(slackSigningSecret, t0.Add(-5*time.Minute-time.Second), approve), body: approve, want: ErrStale},
		{name: "timestamp not a number", header: func() http.Header {
			h := http.Header{}
			h.Set(slackTimestampHeader, "soon")
			h.Set(slackSignatureHeader, "v0="+hmacSHA256Hex(slackSigningSecret, []byte("v0:soon:"+approve)))
			return h
		}(), body: approve, want: ErrUnauthenticated},
		{name: "another conversation", body: slackPayload(slackApproveAction, "appr-1", "U0ALICE", "C0OTHER"), want: ErrForeign},
		{name: "someone else's button", body: slackPayload("other_app_button", "appr-1", "U0ALICE", slackChannelID), want: ErrMalformed},
		{name: "bad approval id", body: slackPayload(slackApproveAction, "appr 1", "U0ALICE", slackChannelID), want: ErrMalformed},
		{name: "no user", body: slackPayload(slackApproveAction, "appr-1", "", slackChannelID), want: ErrMalformed},
		{name: "two actions", body: twoActions, want: ErrMalformed},
		{name: "not a block_actions payload", body: url.Values{"payload": {`{"type":"view_submission"}`}}.Encode(), want: ErrMalformed},
		{name: "no payload field", body: "foo=bar", want: ErrMalformed},
		{name: "payload not JSON", body: "payload=%7Bnope", want: ErrMalformed},
		{name: "too large", body: "payload=" + strings.Repeat("x", MaxCallbackBytes), want: ErrTooLarge},
		{name: "no signing secret", noSecret: true, body: approve, want: ErrCallbacksDisabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := slackConfig("http://127.0.0.1:1/api")
			if tt.noSecret {
				cfg.SigningSecret = ""
			}
			ch := build(t, cfg, nil)
			h := tt.header
			if h == nil {
				h = signedSlack(slackSigningSecret, t0, tt.body)
			}
			d, reply, err := ch.ParseCallback(h, []byte(tt.body))
			wantErr(t, err, tt.want)
			if tt.want != nil {
				if !d.Empty() {
					t.Fatalf("refused callback returned %+v", d)
				}
				noSecrets(t, err.Error(), slackSigningSecret, slackBotToken)
				return
			}
			want := Decision{ApprovalID: "appr-1", Approved: tt.approved, UserID: "U0ALICE", UserName: "alice", Channel: "ops-slack", Conversation: slackChannelID}
			if d != want {
				t.Fatalf("decision = %+v, want %+v", d, want)
			}
			if len(reply) != 0 {
				t.Fatalf("reply = %q, want empty", reply)
			}
		})
	}
}

func TestSlackCallbackReplay(t *testing.T) {
	ch := build(t, slackConfig("http://127.0.0.1:1/api"), nil)
	body := slackPayload(slackApproveAction, "appr-1", "U0ALICE", slackChannelID)
	h := signedSlack(slackSigningSecret, t0, body)
	if _, _, err := ch.ParseCallback(h, []byte(body)); err != nil {
		t.Fatal(err)
	}
	_, _, err := ch.ParseCallback(h, []byte(body))
	wantErr(t, err, ErrReplayed)
	// The same click signed a second later is a new request.
	if _, _, err := ch.ParseCallback(signedSlack(slackSigningSecret, t0.Add(time.Second), body), []byte(body)); err != nil {
		t.Fatal(err)
	}
}
