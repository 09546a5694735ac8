package channels

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
)

const webhookSecret = "whsec-test-0123456789"

// received is one request a fake server saw.
type received struct {
	header http.Header
	body   []byte
}

// recorder is an httptest server that keeps the last request and answers
// with status.
func recorder(t *testing.T, status int) (*httptest.Server, *atomic.Pointer[received]) {
	t.Helper()
	var last atomic.Pointer[received]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		last.Store(&received{header: r.Header.Clone(), body: b})
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &last
}

func webhookConfig(url, secret string) config.Channel {
	return config.Channel{Name: "ops", Type: KindWebhook, URL: url, Secret: secret}
}

func TestWebhookSendCard(t *testing.T) {
	srv, last := recorder(t, http.StatusNoContent)
	ch := build(t, webhookConfig(srv.URL+"/hook", webhookSecret), nil)

	ref, err := ch.SendCard(context.Background(), Card{
		ApprovalID: "appr-1", Title: "Pay 500 EUR?",
		Fields: []Field{{"Tool", "pay"}, {"Arguments", `{"amount":500}`}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ref.Channel != "ops" {
		t.Errorf("ref = %+v", ref)
	}
	got := last.Load()
	ts := got.header.Get(HeaderTimestamp)
	if ts != strconv.FormatInt(t0.Unix(), 10) {
		t.Errorf("timestamp header = %q", ts)
	}
	wantSig := signaturePrefix + webhookSignature(webhookSecret, ts, got.body)
	if got.header.Get(HeaderSignature) != wantSig {
		t.Errorf("signature header = %q, want %q", got.header.Get(HeaderSignature), wantSig)
	}
	var body struct {
		Type       string  `json:"type"`
		Channel    string  `json:"channel"`
		ApprovalID string  `json:"approval_id"`
		Title      string  `json:"title"`
		Fields     []Field `json:"fields"`
		Actions    []string
	}
	if err := json.Unmarshal(got.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Type != "approval_request" || body.ApprovalID != "appr-1" || body.Title != "Pay 500 EUR?" ||
		len(body.Fields) != 2 || body.Fields[1].Value != `{"amount":500}` ||
		strings.Join(body.Actions, ",") != "approve,reject" {
		t.Errorf("body = %+v", body)
	}
}

func TestWebhookSendMessage(t *testing.T) {
	tests := []struct {
		name   string
		secret string
		signed bool
	}{
		{"signed with a secret", webhookSecret, true},
		{"unsigned without one", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, last := recorder(t, http.StatusOK)
			ch := build(t, webhookConfig(srv.URL, tt.secret), nil)
			if err := ch.SendMessage(context.Background(), "an order was placed"); err != nil {
				t.Fatal(err)
			}
			got := last.Load()
			if signed := got.header.Get(HeaderSignature) != ""; signed != tt.signed {
				t.Errorf("signed = %v, want %v", signed, tt.signed)
			}
			if !strings.Contains(string(got.body), `"text":"an order was placed"`) {
				t.Errorf("body = %s", got.body)
			}
		})
	}
}

func TestWebhookSendFailures(t *testing.T) {
	var hits atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer elsewhere.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	failing, _ := recorder(t, http.StatusInternalServerError)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/path-token-s3cr3t"
	dead.Close()

	tests := []struct {
		name   string
		url    string
		status int
	}{
		{"server error", failing.URL, http.StatusInternalServerError},
		{"redirect not followed", redirect.URL, http.StatusTemporaryRedirect},
		{"connection refused", deadURL, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := build(t, webhookConfig(tt.url, webhookSecret), nil)
			err := ch.SendMessage(context.Background(), "x")
			if err == nil {
				t.Fatal("send succeeded")
			}
			var apiErr *APIError
			if tt.status != 0 && (!errors.As(err, &apiErr) || apiErr.Status != tt.status) {
				t.Fatalf("error = %v, want an APIError with status %d", err, tt.status)
			}
			noSecrets(t, err.Error(), webhookSecret, "path-token-s3cr3t")
		})
	}
	if hits.Load() != 0 {
		t.Fatal("the redirect was followed")
	}
}

func TestWebhookSendHonoursContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ch := build(t, webhookConfig(srv.URL, ""), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := ch.SendMessage(ctx, "x"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want deadline exceeded", err)
	}
}

// signedWebhook builds a callback's headers for body signed at ts.
func signedWebhook(secret string, ts time.Time, body string) http.Header {
	h := http.Header{}
	s := strconv.FormatInt(ts.Unix(), 10)
	h.Set(HeaderTimestamp, s)
	h.Set(HeaderSignature, signaturePrefix+webhookSignature(secret, s, []byte(body)))
	return h
}

func TestWebhookCallback(t *testing.T) {
	const approve = `{"approval_id":"appr-1","decision":"approve","user":"alice"}`
	tests := []struct {
		name     string
		secret   string // the channel's
		header   http.Header
		body     string
		want     error
		approved bool
	}{
		{name: "genuine approve", header: signedWebhook(webhookSecret, t0, approve), body: approve, approved: true},
		{name: "genuine reject", body: `{"approval_id":"appr-1","decision":"reject","user":"bob"}`},
		{name: "signed a minute in the future", header: signedWebhook(webhookSecret, t0.Add(time.Minute), approve), body: approve, approved: true},
		{name: "forged signature", header: signedWebhook("not-the-secret", t0, approve), body: approve, want: ErrUnauthenticated},
		{name: "body altered after signing", header: signedWebhook(webhookSecret, t0, approve), body: strings.Replace(approve, "alice", "mallory", 1), want: ErrUnauthenticated},
		{name: "no signature", header: http.Header{}, body: approve, want: ErrUnauthenticated},
		{name: "stale timestamp", header: signedWebhook(webhookSecret, t0.Add(-6*time.Minute), approve), body: approve, want: ErrStale},
		{name: "timestamp too far ahead", header: signedWebhook(webhookSecret, t0.Add(6*time.Minute), approve), body: approve, want: ErrStale},
		{name: "not JSON", body: `approve appr-1`, want: ErrMalformed},
		{name: "unknown decision", body: `{"approval_id":"appr-1","decision":"maybe","user":"alice"}`, want: ErrMalformed},
		{name: "no user", body: `{"approval_id":"appr-1","decision":"approve"}`, want: ErrMalformed},
		{name: "bad approval id", body: `{"approval_id":"a b","decision":"approve","user":"alice"}`, want: ErrMalformed},
		{name: "too large", body: `{"user":"` + strings.Repeat("x", MaxCallbackBytes) + `"}`, want: ErrTooLarge},
		{name: "channel without a secret", secret: "-", body: approve, want: ErrCallbacksDisabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secret := webhookSecret
			if tt.secret == "-" {
				secret = ""
			}
			ch := build(t, webhookConfig("http://127.0.0.1:1/hook", secret), nil)
			h := tt.header
			if h == nil {
				h = signedWebhook(webhookSecret, t0, tt.body)
			}
			d, reply, err := ch.ParseCallback(h, []byte(tt.body))
			wantErr(t, err, tt.want)
			if tt.want != nil {
				if reply != nil || !d.Empty() {
					t.Fatalf("refused callback returned %+v, %q", d, reply)
				}
				noSecrets(t, err.Error(), webhookSecret)
				return
			}
			if d.ApprovalID != "appr-1" || d.Approved != tt.approved || d.UserID == "" || d.Channel != "ops" {
				t.Fatalf("decision = %+v", d)
			}
			if string(reply) != `{"ok":true}` {
				t.Fatalf("reply = %q", reply)
			}
		})
	}
}

func TestWebhookCallbackReplay(t *testing.T) {
	ch := build(t, webhookConfig("http://127.0.0.1:1/hook", webhookSecret), nil)
	body := `{"approval_id":"appr-1","decision":"approve","user":"alice"}`
	h := signedWebhook(webhookSecret, t0, body)
	if _, _, err := ch.ParseCallback(h, []byte(body)); err != nil {
		t.Fatal(err)
	}
	_, _, err := ch.ParseCallback(h, []byte(body))
	wantErr(t, err, ErrReplayed)
	if StatusOf(err) != http.StatusConflict {
		t.Fatalf("status = %d", StatusOf(err))
	}
}
