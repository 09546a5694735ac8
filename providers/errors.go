package providers

import (
	"errors"
	"fmt"
)

// Errors returned by this package, wrapped with context; test with errors.Is.
var (
	// ErrEventTooLarge: an SSE event (or the unterminated tail of one) grew
	// past the parser's maximum.
	ErrEventTooLarge = errors.New("sse event exceeds the maximum size")
	// ErrFeedAfterEnd: Feed was called after End.
	ErrFeedAfterEnd = errors.New("sse parser fed after End")
	// ErrInvalidJSON: a payload or body is not valid JSON, or has the wrong shape.
	ErrInvalidJSON = errors.New("invalid JSON")
	// ErrDuplicateKey: an object repeats a key hookgate reads. Parsers
	// disagree on which occurrence counts, so such input is refused. It
	// wraps ErrInvalidJSON.
	ErrDuplicateKey = fmt.Errorf("duplicate object key: %w", ErrInvalidJSON)
	// ErrArgumentsTooLarge: a tool call's accumulated arguments passed the cap.
	ErrArgumentsTooLarge = errors.New("tool call arguments exceed the maximum size")
	// ErrTooManyToolCalls: a choice started more tool calls than allowed.
	ErrTooManyToolCalls = errors.New("too many tool calls")
	// ErrCallAlreadyComplete: a fragment that would change a call's arguments
	// arrived after the call was reported complete.
	ErrCallAlreadyComplete = errors.New("arguments fragment for a call already reported complete")
	// ErrNotFound: an edit's target (choice, message, tool call) does not exist.
	ErrNotFound = errors.New("edit target not found")
)
