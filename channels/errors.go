package channels

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Why a callback is refused. ParseCallback's errors wrap exactly one of
// these; StatusOf maps them to HTTP statuses.
var (
	// ErrUnauthenticated: a missing or wrong signature or verification
	// token.
	ErrUnauthenticated = errors.New("callback not authenticated")
	// ErrStale: the signed timestamp is outside FreshnessWindow.
	ErrStale = errors.New("callback timestamp outside the freshness window")
	// ErrReplayed: this exact signed request was accepted before.
	ErrReplayed = errors.New("callback already seen")
	// ErrMalformed: the body is not a callback this channel understands.
	ErrMalformed = errors.New("malformed callback")
	// ErrForeign: a genuine callback for another app or conversation.
	ErrForeign = errors.New("callback from another app or conversation")
	// ErrTooLarge: the body exceeds MaxCallbackBytes.
	ErrTooLarge = errors.New("callback body too large")
	// ErrCallbacksDisabled: the channel has no secret to verify callbacks
	// with, so it accepts none.
	ErrCallbacksDisabled = errors.New("channel does not accept callbacks")
)

// StatusOf is the HTTP status for a ParseCallback error: 401 for
// unauthenticated or stale, 409 for replayed, 400 for malformed, 403 for
// foreign, 413 for too large, 404 for a channel that accepts no callbacks,
// and 500 for anything else.
func StatusOf(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, ErrUnauthenticated), errors.Is(err, ErrStale):
		return http.StatusUnauthorized
	case errors.Is(err, ErrReplayed):
		return http.StatusConflict
	case errors.Is(err, ErrMalformed):
		return http.StatusBadRequest
	case errors.Is(err, ErrForeign):
		return http.StatusForbidden
	case errors.Is(err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrCallbacksDisabled):
		return http.StatusNotFound
	default:
		return http.StatusInternalServerError
	}
}

// callbackError wraps a sentinel with the channel's name and a detail that
// never holds a secret.
func callbackError(channel string, sentinel error, detail string) error {
	if detail == "" {
		return fmt.Errorf("channel %q: %w", channel, sentinel)
	}
	return fmt.Errorf("channel %q: %w: %s", channel, sentinel, detail)
}

// APIError is a failed outbound call: the remote answered, but not with
// success. It holds no request or response bodies, only what identifies
// the failure.
type APIError struct {
	// Channel is the hookgate channel's name; Op what was attempted
	// ("chat.postMessage", "send card", "tenant_access_token").
	Channel, Op string
	// Status is the HTTP status (0 when the body reported the failure on a
	// 200).
	Status int
	// Code is the platform's error code or name ("channel_not_found",
	// "99991663"), when it gave one.
	Code string
	// Message is the platform's short description, cut to 200 characters.
	Message string
	// RetryAfter is the wait a 429 asked for (0 when none).
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("channel %q: %s failed", e.Channel, e.Op)
	if e.Status != 0 {
		s += ": HTTP " + strconv.Itoa(e.Status)
	}
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// newAPIError builds an APIError, cutting the platform's message.
func newAPIError(channel, op string, status int, code, msg string) *APIError {
	return &APIError{Channel: channel, Op: op, Status: status, Code: code, Message: clip(msg, 200)}
}
