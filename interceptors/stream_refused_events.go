package interceptors

import (
	"errors"
	"fmt"
)

// ErrRefusedEvent reports an upstream event a held stream would not relay:
// one in which some client could read a tool call hookgate did not judge,
// or read it differently from hookgate. The client got the route's error
// event in its place, and the stream ended there.
var ErrRefusedEvent = errors.New("upstream event refused")

var (
	errEventAfterEnd = fmt.Errorf("an event after the stream's terminal event: %w", ErrRefusedEvent)
	errStrayDelta    = fmt.Errorf("a delta for a block the stream never started: %w", ErrRefusedEvent)
	errUnjudgedItem  = fmt.Errorf("an output item the agent runs that hookgate does not judge: %w", ErrRefusedEvent)
	errCallRenamed   = fmt.Errorf("a call the final output names otherwise than its stream: %w", ErrRefusedEvent)
)

// Messages shown to the client with the refusal, after hookgate's code.
const (
	refusedAfterEnd   = "the upstream sent an event after the end of the stream; hookgate relays nothing after it"
	refusedEventName  = "the upstream sent an event whose event: name is not its type, which clients read as two different events"
	refusedUnreadable = "the upstream sent an event hookgate cannot read, so what it carries could not be judged"
)
