package channels

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
)

const (
	feishuAppID       = "cli_a1b2c3d4e5"
	feishuAppSecret   = "feishu-app-secret-test"
	feishuChatID      = "oc_0123456789abcdef"
	feishuVerifyToken = "feishu-verification-token"
	feishuEncryptKey  = "feishu-encrypt-key-test"
)

// fakeFeishu plays the Open Platform: it issues tenant_access_tokens for
// the right app credentials, accepts messages only with the token it
// issued last, and keeps what was sent.
type fakeFeishu struct {
	*httptest.Server
	mu           sync.Mutex
	expire       int // seconds each issued token lives
	issued       int // tokens issued
	current      string
	tokenCode    int  // non-zero: the token endpoint fails with it
	badTokens    bool // issue tokens the message endpoint refuses
	tokenGate    chan struct{}
	sent         []feishuSent
	messageTries int
}

type feishuSent struct {
	body map[string]any
	card map[string]any
}

func newFakeFeishu(t *testing.T) *fakeFeishu {
	t.Helper()
	f := &fakeFeishu{expire: 7200}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /open-apis/auth/v3/tenant_access_token/internal", f.token)
	mux.HandleFunc("POST /open-apis/im/v1/messages", f.message)
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func (f *fakeFeishu) token(w http.ResponseWriter, r *http.Request) {
	if g := f.gate(); g != nil {
		select {
		case <-g:
		case <-r.Context().Done():
			return
		}
	}
	var in struct{ AppID, AppSecret string }
	dec := json.NewDecoder(r.Body)
	var raw map[string]string
	if err := dec.Decode(&raw); err == nil {
		in.AppID, in.AppSecret = raw["app_id"], raw["app_secret"]
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tokenCode != 0 {
		_, _ = io.WriteString(w, `{"code":`+strconv.Itoa(f.tokenCode)+`,"msg":"app secret invalid"}`)
		return
	}
	if in.AppID != feishuAppID || in.AppSecret != feishuAppSecret {
		_, _ = io.WriteString(w, `{"code":10014,"msg":"app secret invalid"}`)
		return
	}
	f.issued++
	tok := "t-" + strconv.Itoa(f.issued)
	if f.badTokens {
		f.current = "never-valid"
	} else {
		f.current = tok
	}
	_, _ = io.WriteString(w, `{"code":0,"msg":"ok","tenant_access_token":"`+tok+`","expire":`+strconv.Itoa(f.expire)+`}`)
}

func (f *fakeFeishu) gate() chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokenGate
}

func (f *fakeFeishu) message(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.messageTries++
	if r.URL.Query().Get("receive_id_type") != "chat_id" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"code":99992402,"msg":"field validation failed"}`)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+f.current {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"code":99991663,"msg":"Invalid access token for authorization. Please make a request with token attached."}`)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"code":9499,"msg":"bad json"}`)
		return
	}
	var card map[string]any
	content, _ := body["content"].(string)
	_ = json.Unmarshal([]byte(content), &card)
	f.sent = append(f.sent, feishuSent{body: body, card: card})
	_, _ = io.WriteString(w, `{"code":0,"msg":"success","data":{"message_id":"om_`+strconv.Itoa(len(f.sent))+`","chat_id":"`+feishuChatID+`","msg_type":"interactive"}}`)
}

// revoke invalidates the token the channel holds, as an app secret reset
// would.
func (f *fakeFeishu) revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.current = "revoked"
}

func (f *fakeFeishu) stats() (issued, tries, sent int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.issued, f.messageTries, len(f.sent)
}

func (f *fakeFeishu) last(t *testing.T) feishuSent {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sent) == 0 {
		t.Fatal("nothing was sent")
	}
	return f.sent[len(f.sent)-1]
}

func feishuConfig(api string) config.Channel {
	return config.Channel{
		Name: "ops-feishu", Type: KindFeishu, URL: api, Channel: feishuChatID,
		AppID: feishuAppID, AppSecret: feishuAppSecret,
		VerificationToken: feishuVerifyToken, EncryptKey: feishuEncryptKey,
	}
}

func TestFeishuSendCard(t *testing.T) {
	api := newFakeFeishu(t)
	ch := build(t, feishuConfig(api.URL), nil)
	hostile := `<at user_id="all"></at> **bold** [click](https://evil.example)`
	ref, err := ch.SendCard(context.Background(), Card{
		ApprovalID: "appr-1", Title: "Approve pay?",
		Fields: []Field{{"Tool", "pay"}, {"Arguments", hostile}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ref != (MessageRef{Channel: "ops-feishu", Conversation: feishuChatID, ID: "om_1"}) {
		t.Errorf("ref = %+v", ref)
	}
	got := api.last(t)
	checks := []struct {
		v    any
		path []any
		want any
	}{
		{got.body, []any{"receive_id"}, feishuChatID},
		{got.body, []any{"msg_type"}, "interactive"},
		{got.body, []any{"uuid"}, "appr-1"},
		{got.card, []any{"schema"}, "2.0"},
		{got.card, []any{"config", "enable_forward"}, false},
		{got.card, []any{"header", "title", "tag"}, "plain_text"},
		{got.card, []any{"header", "title", "content"}, "Approve pay?"},
		{got.card, []any{"body", "elements", 0, "text", "content"}, "Tool:"},
		{got.card, []any{"body", "elements", 1, "text", "content"}, "pay"},
		{got.card, []any{"body", "elements", 3, "text", "tag"}, "plain_text"},
		{got.card, []any{"body", "elements", 3, "text", "content"}, hostile},
		{got.card, []any{"body", "elements", 4, "tag"}, "column_set"},
		{got.card, []any{"body", "elements", 4, "columns", 0, "elements", 0, "tag"}, "button"},
		{got.card, []any{"body", "elements", 4, "columns", 0, "elements", 0, "behaviors", 0, "type"}, "callback"},
		{got.card, []any{"body", "elements", 4, "columns", 0, "elements", 0, "behaviors", 0, "value", "approval_id"}, "appr-1"},
		{got.card, []any{"body", "elements", 4, "columns", 0, "elements", 0, "behaviors", 0, "value", "decision"}, "approve"},
		{got.card, []any{"body", "elements", 4, "columns", 1, "elements", 0, "behaviors", 0, "value", "decision"}, "reject"},
	}
	for _, c := range checks {
		if v := jsonPath(t, c.v, c.path...); v != c.want {
			t.Errorf("%v = %#v, want %#v", c.path, v, c.want)
		}
	}
}

func TestFeishuSendMessage(t *testing.T) {
	api := newFakeFeishu(t)
	ch := build(t, feishuConfig(api.URL), nil)
	if err := ch.SendMessage(context.Background(), `an order was placed <at user_id="all"></at>`); err != nil {
		t.Fatal(err)
	}
	got := api.last(t)
	if v := jsonPath(t, got.card, "body", "elements", 0, "text", "content"); v != `an order was placed <at user_id="all"></at>` {
		t.Errorf("text = %#v", v)
	}
	if v := jsonPath(t, got.card, "body", "elements", 0, "text", "tag"); v != "plain_text" {
		t.Errorf("tag = %#v", v)
	}
	if _, ok := got.body["uuid"]; ok {
		t.Error("a message carried a dedup uuid")
	}
}

func TestFeishuTokenCachedUntilDue(t *testing.T) {
	tests := []struct {
		name   string
		expire int
		keep   time.Duration // still cached this long after the fetch
		due    time.Duration // refetched at this point
	}{
		{"two hours", 7200, 7200*time.Second - tokenRefreshMargin - time.Second, 7200*time.Second - tokenRefreshMargin},
		{"short-lived token", 60, 29 * time.Second, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeFeishu(t)
			api.expire = tt.expire
			clk := newClock()
			ch := build(t, feishuConfig(api.URL), clk.Now)
			ctx := context.Background()
			for range 3 {
				if err := ch.SendMessage(ctx, "x"); err != nil {
					t.Fatal(err)
				}
			}
			if issued, _, _ := api.stats(); issued != 1 {
				t.Fatalf("%d tokens fetched for three sends, want 1", issued)
			}
			clk.Advance(tt.keep)
			if err := ch.SendMessage(ctx, "x"); err != nil {
				t.Fatal(err)
			}
			if issued, _, _ := api.stats(); issued != 1 {
				t.Fatalf("token refetched %s after the fetch", tt.keep)
			}
			clk.Advance(tt.due - tt.keep)
			if err := ch.SendMessage(ctx, "x"); err != nil {
				t.Fatal(err)
			}
			if issued, _, sent := api.stats(); issued != 2 || sent != 5 {
				t.Fatalf("issued=%d sent=%d, want a refresh at %s", issued, sent, tt.due)
			}
		})
	}
}

func TestFeishuRefusedTokenRefreshed(t *testing.T) {
	api := newFakeFeishu(t)
	ch := build(t, feishuConfig(api.URL), nil)
	ctx := context.Background()
	if err := ch.SendMessage(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	api.revoke()
	if _, err := ch.SendCard(ctx, Card{ApprovalID: "appr-2"}); err != nil {
		t.Fatalf("send after revocation: %v", err)
	}
	if issued, tries, sent := api.stats(); issued != 2 || tries != 3 || sent != 2 {
		t.Fatalf("issued=%d tries=%d sent=%d, want one refresh and one retry", issued, tries, sent)
	}
}

func TestFeishuSendFailures(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(*fakeFeishu, *config.Channel)
		code   string
		status int
	}{
		{"token endpoint refuses the app", func(f *fakeFeishu, _ *config.Channel) { f.tokenCode = 10014 }, "10014", 0},
		{"wrong app secret", func(_ *fakeFeishu, c *config.Channel) { c.AppSecret = "wrong-secret-value" }, "10014", 0},
		{"token refused twice: one retry only", func(f *fakeFeishu, _ *config.Channel) { f.badTokens = true }, "99991663", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeFeishu(t)
			cfg := feishuConfig(api.URL)
			tt.setup(api, &cfg)
			ch := build(t, cfg, nil)
			_, err := ch.SendCard(context.Background(), Card{ApprovalID: "appr-1"})
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Code != tt.code || apiErr.Status != tt.status {
				t.Fatalf("error = %v (%+v), want code %s status %d", err, apiErr, tt.code, tt.status)
			}
			noSecrets(t, err.Error(), cfg.AppSecret, feishuAppSecret, feishuEncryptKey, feishuVerifyToken)
			if _, tries, _ := api.stats(); tries > 2 {
				t.Fatalf("%d message attempts, want at most 2", tries)
			}
		})
	}
}

func TestFeishuTokenWaitHonoursContext(t *testing.T) {
	api := newFakeFeishu(t)
	gate := make(chan struct{})
	api.tokenGate = gate
	ch := build(t, feishuConfig(api.URL), nil)

	first := make(chan error, 1)
	go func() { first <- ch.SendMessage(context.Background(), "x") }()
	// Wait until the first send holds the fetch, then time out behind it.
	for {
		f := ch.(*feishu)
		if len(f.tokens.lock) == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := ch.SendMessage(ctx, "y"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting send: %v, want deadline exceeded", err)
	}
	close(gate)
	if err := <-first; err != nil {
		t.Fatalf("first send: %v", err)
	}
}

// feishuEvent is a schema 2.0 card.action.trigger callback as Feishu
// documents it, with edit applied before encoding.
func feishuEvent(edit func(m map[string]any)) string {
	m := map[string]any{
		"schema": "2.0",
		"header": map[string]any{
			"event_id": "f7984f25108f8137722bb63cee927e66", "token": feishuVerifyToken,
			"create_time": "1750000000000000", "event_type": "card.action.trigger",
			"tenant_key": "736588c9260f175d", "app_id": feishuAppID,
		},
		"event": map[string]any{
			"operator": map[string]any{"tenant_key": "736588c9260f175d", "user_id": "e33ggbyz", "open_id": "ou_alice", "union_id": "on_alice"},
			"token":    "c-295ee57fe8b7fe67b2eb0bd2ee5a8c5b70c03b0d",
			"action": map[string]any{
				"value": map[string]any{"approval_id": "appr-1", "decision": "approve"},
				"tag":   "button",
			},
			"host":    "im_message",
			"context": map[string]any{"open_message_id": "om_1", "open_chat_id": feishuChatID},
		},
	}
	if edit != nil {
		edit(m)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func setIn(path []string, v any) func(map[string]any) {
	return func(m map[string]any) {
		for _, k := range path[:len(path)-1] {
			m = m[k].(map[string]any)
		}
		m[path[len(path)-1]] = v
	}
}

// feishuEncrypt encrypts the way Feishu documents: AES-256-CBC under
// sha256(key), a random IV in front, PKCS#7 padding, base64.
func feishuEncrypt(key, plain string) string {
	k := sha256.Sum256([]byte(key))
	block, _ := aes.NewCipher(k[:])
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	data := append([]byte(plain), bytes.Repeat([]byte{byte(pad)}, pad)...)
	out := make([]byte, aes.BlockSize+len(data))
	_, _ = rand.Read(out[:aes.BlockSize])
	cipher.NewCBCEncrypter(block, out[:aes.BlockSize]).CryptBlocks(out[aes.BlockSize:], data)
	b, _ := json.Marshal(map[string]string{"encrypt": base64.StdEncoding.EncodeToString(out)})
	return string(b)
}

// signedFeishu builds Feishu's signature headers for body.
func signedFeishu(key string, ts time.Time, nonce, body string) http.Header {
	s := strconv.FormatInt(ts.Unix(), 10)
	sum := sha256.Sum256([]byte(s + nonce + key + body))
	h := http.Header{}
	h.Set(larkTimestampHeader, s)
	h.Set(larkNonceHeader, nonce)
	h.Set(larkSignatureHeader, hex.EncodeToString(sum[:]))
	return h
}

func TestFeishuCallback(t *testing.T) {
	approve := feishuEvent(nil)
	challenge := `{"challenge":"ajls384kdjx98XX","token":"` + feishuVerifyToken + `","type":"url_verification"}`
	tests := []struct {
		name      string
		body      string
		header    http.Header // nil: signed genuinely
		unsigned  bool
		cfg       func(*config.Channel)
		want      error
		approved  bool
		handshake string // expected reply to a handshake
	}{
		{name: "genuine approve, plain body", body: approve, approved: true},
		{name: "genuine approve, encrypted body", body: feishuEncrypt(feishuEncryptKey, approve), approved: true},
		{name: "genuine reject", body: feishuEvent(setIn([]string{"event", "action", "value", "decision"}, "reject"))},
		{name: "url_verification answered", body: challenge, unsigned: true, handshake: `{"challenge":"ajls384kdjx98XX"}`},
		{name: "encrypted url_verification answered", body: feishuEncrypt(feishuEncryptKey, challenge), unsigned: true, handshake: `{"challenge":"ajls384kdjx98XX"}`},
		{name: "url_verification without an encrypt key", body: challenge, unsigned: true, cfg: func(c *config.Channel) { c.EncryptKey = "" }, handshake: `{"challenge":"ajls384kdjx98XX"}`},
		{name: "url_verification with a wrong token", body: strings.Replace(challenge, feishuVerifyToken, "guess", 1), unsigned: true, want: ErrUnauthenticated},
		{name: "url_verification with no token", body: `{"challenge":"x","type":"url_verification"}`, unsigned: true, want: ErrUnauthenticated},
		{name: "forged signature", body: approve, header: signedFeishu("not-the-key", t0, "n1", approve), want: ErrUnauthenticated},
		{name: "decision flipped after signing", body: feishuEvent(setIn([]string{"event", "action", "value", "decision"}, "reject")), header: signedFeishu(feishuEncryptKey, t0, "n1", approve), want: ErrUnauthenticated},
		{name: "unsigned card action", body: approve, unsigned: true, want: ErrUnauthenticated},
		{name: "unsigned encrypted card action", body: feishuEncrypt(feishuEncryptKey, approve), unsigned: true, want: ErrUnauthenticated},
		{name: "signed but no encrypt key to check it", body: approve, cfg: func(c *config.Channel) { c.EncryptKey = "" }, want: ErrUnauthenticated},
		{name: "stale timestamp", body: approve, header: signedFeishu(feishuEncryptKey, t0.Add(-10*time.Minute), "n1", approve), want: ErrStale},
		{name: "wrong verification token", body: feishuEvent(setIn([]string{"header", "token"}, "guess")), want: ErrUnauthenticated},
		{name: "another app", body: feishuEvent(setIn([]string{"header", "app_id"}, "cli_other")), want: ErrForeign},
		{name: "another chat", body: feishuEvent(setIn([]string{"event", "context", "open_chat_id"}, "oc_other")), want: ErrForeign},
		{name: "another event type", body: feishuEvent(setIn([]string{"header", "event_type"}, "im.message.receive_v1")), want: ErrMalformed},
		{name: "old schema", body: feishuEvent(func(m map[string]any) { delete(m, "schema") }), want: ErrMalformed},
		{name: "foreign action value", body: feishuEvent(setIn([]string{"event", "action", "value"}, map[string]any{"key": "value"})), want: ErrMalformed},
		{name: "string action value", body: feishuEvent(setIn([]string{"event", "action", "value"}, "approve")), want: ErrMalformed},
		{name: "no operator", body: feishuEvent(setIn([]string{"event", "operator", "open_id"}, "")), want: ErrMalformed},
		{name: "not JSON", body: `{"schema":`, want: ErrMalformed},
		{name: "undecryptable", body: `{"encrypt":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}`, want: ErrMalformed},
		{name: "encrypted under another key", body: feishuEncrypt("other-key", approve), want: ErrMalformed},
		{name: "too large", body: strings.Repeat(" ", MaxCallbackBytes+1), want: ErrTooLarge},
		{name: "no verification token configured", body: challenge, unsigned: true, cfg: func(c *config.Channel) { c.VerificationToken = "" }, want: ErrCallbacksDisabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := feishuConfig("http://127.0.0.1:1")
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			ch := build(t, cfg, nil)
			h := tt.header
			switch {
			case tt.unsigned:
				h = http.Header{"Content-Type": {"application/json"}}
			case h == nil:
				h = signedFeishu(feishuEncryptKey, t0, "n1", tt.body)
			}
			d, reply, err := ch.ParseCallback(h, []byte(tt.body))
			wantErr(t, err, tt.want)
			if tt.want != nil {
				if !d.Empty() || reply != nil {
					t.Fatalf("refused callback returned %+v, %q", d, reply)
				}
				noSecrets(t, err.Error(), feishuEncryptKey, feishuVerifyToken, feishuAppSecret)
				return
			}
			if tt.handshake != "" {
				if !d.Empty() || string(reply) != tt.handshake {
					t.Fatalf("handshake returned %+v, %q", d, reply)
				}
				return
			}
			want := Decision{ApprovalID: "appr-1", Approved: tt.approved, UserID: "ou_alice", Channel: "ops-feishu", Conversation: feishuChatID}
			if d != want {
				t.Fatalf("decision = %+v, want %+v", d, want)
			}
			var toast struct {
				Toast struct{ Type, Content string }
			}
			if err := json.Unmarshal(reply, &toast); err != nil || toast.Toast.Content == "" {
				t.Fatalf("reply = %q", reply)
			}
		})
	}
}

func TestFeishuCallbackReplay(t *testing.T) {
	body := feishuEncrypt(feishuEncryptKey, feishuEvent(nil))
	tests := []struct {
		name   string
		second http.Header
	}{
		{"same request again", signedFeishu(feishuEncryptKey, t0, "n1", body)},
		{"same event re-signed", signedFeishu(feishuEncryptKey, t0.Add(time.Second), "n2", body)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := build(t, feishuConfig("http://127.0.0.1:1"), nil)
			if _, _, err := ch.ParseCallback(signedFeishu(feishuEncryptKey, t0, "n1", body), []byte(body)); err != nil {
				t.Fatal(err)
			}
			_, _, err := ch.ParseCallback(tt.second, []byte(body))
			wantErr(t, err, ErrReplayed)
		})
	}
}
