package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// defaultAdminTokenEnv names the variable the command line reads its
// admin token from when it answers through the admin API.
const defaultAdminTokenEnv = "HOOKGATE_ADMIN_TOKEN"

// adminAnswer is what the admin API says of an answered question.
type adminAnswer struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Tool        string `json:"tool"`
	RespondedBy string `json:"responded_by"`
	Comment     string `json:"comment"`
}

// answerThroughAdmin approves or rejects question id through the admin
// API at base (POST /admin/approvals/{id}/approve|reject, the desk the
// console answers through), with comment in the body when there is one.
// The running hookgate records the token's name as who answered and
// releases the held call at once. The token goes in the Authorization
// header only, never in an error.
func answerThroughAdmin(ctx context.Context, base, token, id string, approve bool, comment string) (adminAnswer, error) {
	verb := "reject"
	if approve {
		verb = "approve"
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return adminAnswer{}, fmt.Errorf("--admin %q: want the admin listener's URL, e.g. http://127.0.0.1:8788", base)
	}
	var body io.Reader
	if comment != "" {
		b, _ := json.Marshal(map[string]string{"comment": comment})
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String()+"/admin/approvals/"+url.PathEscape(id)+"/"+verb, body)
	if err != nil {
		return adminAnswer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return adminAnswer{}, fmt.Errorf("admin API: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		msg := resp.Status
		if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
			msg += ": " + e.Error.Message
		}
		return adminAnswer{}, fmt.Errorf("admin API: %s", msg)
	}
	var out adminAnswer
	if err := json.Unmarshal(b, &out); err != nil {
		return adminAnswer{}, fmt.Errorf("admin API: unreadable answer: %w", err)
	}
	return out, nil
}
