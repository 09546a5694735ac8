package app

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/tracing"
)

// startTracing builds the tracer provider of cfg's tracing block; nil when
// tracing is off. The exporter connects lazily: a collector that is down
// costs dropped spans, never a failed start.
func startTracing(cfg *config.Config, log *slog.Logger) (*tracing.Provider, error) {
	t := cfg.Tracing
	if !t.Enabled {
		return nil, nil
	}
	tracing.LogErrors(log, 30*time.Second)
	p, err := tracing.New(context.Background(), tracing.Options{
		Endpoint:    t.Endpoint,
		Protocol:    t.Protocol,
		Insecure:    t.Insecure,
		Headers:     t.Headers,
		SampleRatio: t.Ratio(),
		ServiceName: t.ServiceName,
	})
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	return p, nil
}

// tracingChanged reports a reload whose tracing block differs from the
// one hookgate started with (which stays in force until a restart).
func tracingChanged(started, next *config.Config) bool {
	return !reflect.DeepEqual(started.Tracing, next.Tracing)
}
