package interceptors

import (
	"errors"
	"fmt"
)

// ErrTruncated reports an upstream stream that ended without its terminal
// marker. What was relayed stays relayed; the client got an error event.
var ErrTruncated = errors.New("upstream stream ended without its terminal marker")

// RequestError is an answer hookgate gives instead of forwarding: a bad
// request body (400), a contributing hook that failed (503), a refusal.
type RequestError struct {
	Status  int
	Type    string // OpenAI error type, e.g. invalid_request_error
	Code    string // machine-readable code, e.g. invalid_json
	Message string
	Err     error // the cause, for logs; never shown to the client
}

func (e *RequestError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

func (e *RequestError) Unwrap() error { return e.Err }
