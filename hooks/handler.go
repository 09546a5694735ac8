package hooks

import "context"

// Handler decides one hook execution. The context carries the hook's
// timeout; a handler must return promptly once it is done. A returned error
// is recorded as an error decision (which fails closed unless the hook says
// otherwise); a context deadline is recorded as a timeout.
type Handler interface {
	Handle(ctx context.Context, ev *Event) (Result, error)
}

// Closer is implemented by handlers that hold resources (runtime pools,
// idle connections) to release when a configuration is retired.
type Closer interface {
	Close() error
}
