package tracing

import (
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
)

// LogErrors sends the SDK's errors (a failed export: the collector down or
// refusing) to log as warnings, at most one per every; the others are
// counted into the next line. The SDK's default would print each to
// stderr, one per batch. It is process-wide, like the SDK's handler.
func LogErrors(log *slog.Logger, every time.Duration) {
	var last atomic.Int64
	var dropped atomic.Int64
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		now := time.Now().UnixNano()
		prev := last.Load()
		if now-prev < int64(every) || !last.CompareAndSwap(prev, now) {
			dropped.Add(1)
			return
		}
		log.Warn("tracing: spans not exported", "err", err, "more_since_last", dropped.Swap(0))
	}))
}
