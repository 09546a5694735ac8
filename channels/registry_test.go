package channels

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/config"
)

func TestNew(t *testing.T) {
	chans, err := New([]config.Channel{
		webhookConfig("https://hooks.example.invalid/h", webhookSecret),
		slackConfig(""),
		feishuConfig(""),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range chans {
			c.Close()
		}
	}()
	want := map[string]string{"ops": KindWebhook, "ops-slack": KindSlack, "ops-feishu": KindFeishu}
	if len(chans) != len(want) {
		t.Fatalf("got %d channels", len(chans))
	}
	for name, kind := range want {
		c := chans[name]
		if c == nil || c.Name() != name || c.Kind() != kind {
			t.Errorf("channel %q = %v", name, c)
		}
	}
	if got := chans["ops-slack"].(*slack).api.String(); got != defaultSlackAPI {
		t.Errorf("slack API base = %q", got)
	}
	if got := chans["ops-feishu"].(*feishu).api.String(); got != defaultFeishuAPI {
		t.Errorf("feishu API base = %q", got)
	}
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name string
		cfg  config.Channel
		want string
	}{
		{"unknown type", config.Channel{Name: "x", Type: "email"}, "not webhook, slack or feishu"},
		{"no name", config.Channel{Type: KindWebhook, URL: "https://h.example"}, "no name"},
		{"webhook without url", config.Channel{Name: "x", Type: KindWebhook}, "url is empty"},
		{"webhook ftp url", config.Channel{Name: "x", Type: KindWebhook, URL: "ftp://h.example/x"}, "not http or https"},
		{"webhook url with user info", config.Channel{Name: "x", Type: KindWebhook, URL: "https://user:pa55word@h.example/x"}, "user info"},
		{"slack without bot token", func() config.Channel { c := slackConfig(""); c.BotToken = ""; return c }(), "bot_token_env"},
		{"slack without channel", func() config.Channel { c := slackConfig(""); c.Channel = ""; return c }(), "channel id"},
		{"feishu without app id", func() config.Channel { c := feishuConfig(""); c.AppID = ""; return c }(), "app_id"},
		{"feishu without app secret", func() config.Channel { c := feishuConfig(""); c.AppSecret = ""; return c }(), "app_secret_env"},
		{"feishu without chat", func() config.Channel { c := feishuConfig(""); c.Channel = ""; return c }(), "chat id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := buildChannel(tt.cfg)
			if err == nil {
				ch.Close()
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to mention %q", err, tt.want)
			}
			noSecrets(t, err.Error(), "pa55word", slackBotToken, feishuAppSecret)
		})
	}
}

func TestNewReportsEveryProblem(t *testing.T) {
	_, err := New([]config.Channel{
		{Name: "a", Type: "email"},
		webhookConfig("https://h.example", ""),
		webhookConfig("https://h.example", ""), // duplicate "ops"
		{Name: "b", Type: KindSlack},
	})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{`"a"`, "duplicate", `"b"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, http.StatusOK},
		{callbackError("c", ErrUnauthenticated, "x"), http.StatusUnauthorized},
		{callbackError("c", ErrStale, ""), http.StatusUnauthorized},
		{callbackError("c", ErrReplayed, ""), http.StatusConflict},
		{callbackError("c", ErrMalformed, "x"), http.StatusBadRequest},
		{callbackError("c", ErrForeign, "x"), http.StatusForbidden},
		{callbackError("c", ErrTooLarge, ""), http.StatusRequestEntityTooLarge},
		{callbackError("c", ErrCallbacksDisabled, "x"), http.StatusNotFound},
		{fmt.Errorf("wrapped: %w", callbackError("c", ErrForeign, "")), http.StatusForbidden},
		{errors.New("other"), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		if got := StatusOf(tt.err); got != tt.want {
			t.Errorf("StatusOf(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
