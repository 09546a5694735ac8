package channels

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// tokenRefreshMargin is how long before its expiry a tenant_access_token
// is replaced. Feishu hands out a new token once the old one has under 30
// minutes left, so any margin below that gets a fresh one.
const tokenRefreshMargin = 5 * time.Minute

// tenantToken caches a Feishu app's tenant_access_token until shortly
// before it expires. One fetch runs at a time; callers waiting for it give
// up when their context ends.
type tenantToken struct {
	channel   string
	api       *url.URL
	appID     string
	appSecret string
	client    *http.Client
	now       func() time.Time

	lock    chan struct{} // a one-slot lock that a waiter can abandon
	token   string
	expires time.Time
}

func newTenantToken(channel string, api *url.URL, appID, appSecret string, client *http.Client, now func() time.Time) *tenantToken {
	return &tenantToken{
		channel: channel, api: api, appID: appID, appSecret: appSecret,
		client: client, now: now, lock: make(chan struct{}, 1),
	}
}

// get returns a token that is valid for at least tokenRefreshMargin,
// fetching one when the cached token is missing or due.
func (t *tenantToken) get(ctx context.Context) (string, error) {
	select {
	case t.lock <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("channel %q: waiting for tenant_access_token: %w", t.channel, ctx.Err())
	}
	defer func() { <-t.lock }()
	if t.token != "" && t.now().Before(t.expires) {
		return t.token, nil
	}
	tok, ttl, err := t.fetch(ctx)
	if err != nil {
		return "", err
	}
	t.token = tok
	if ttl > 2*tokenRefreshMargin {
		t.expires = t.now().Add(ttl - tokenRefreshMargin)
	} else {
		t.expires = t.now().Add(ttl / 2)
	}
	return tok, nil
}

// invalidate forgets tok if it is still the cached token, so that the next
// get fetches again. A caller whose request was refused for its token
// calls it; a token another caller already replaced stays.
func (t *tenantToken) invalidate(ctx context.Context, tok string) {
	select {
	case t.lock <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-t.lock }()
	if t.token == tok {
		t.token = ""
	}
}

// fetch calls auth/v3/tenant_access_token/internal.
func (t *tenantToken) fetch(ctx context.Context) (string, time.Duration, error) {
	const op = "tenant_access_token"
	body, err := json.Marshal(struct {
		AppID     string `json:"app_id"`
		AppSecret string `json:"app_secret"`
	}{t.appID, t.appSecret})
	if err != nil {
		return "", 0, fmt.Errorf("channel %q: %s: encoding: %w", t.channel, op, err)
	}
	ex, err := postJSON(ctx, t.client, endpoint(t.api, "/open-apis/auth/v3/tenant_access_token/internal"), nil, body)
	if err != nil {
		return "", 0, fmt.Errorf("channel %q: %s: %w", t.channel, op, err)
	}
	var resp struct {
		Code   int    `json:"code"`
		Msg    string `json:"msg"`
		Token  string `json:"tenant_access_token"`
		Expire int64  `json:"expire"`
	}
	jsonErr := json.Unmarshal(ex.body, &resp)
	if ex.status != http.StatusOK || jsonErr != nil || resp.Code != 0 || resp.Token == "" || resp.Expire <= 0 {
		status := ex.status
		if status == http.StatusOK {
			status = 0
		}
		code, msg := "", resp.Msg
		if jsonErr == nil && resp.Code != 0 {
			code = strconv.Itoa(resp.Code)
		} else if ex.status == http.StatusOK {
			msg = "no token in the response"
		}
		e := newAPIError(t.channel, op, status, code, msg)
		e.RetryAfter = ex.retryAfter
		return "", 0, e
	}
	return resp.Token, time.Duration(resp.Expire) * time.Second, nil
}
