package hooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sony/gobreaker/v2"
)

// Defaults of the circuit breaker that guards each http and prompt hook.
const (
	// DefaultBreakerFailures is how many failures in a row open a breaker.
	DefaultBreakerFailures = 5
	// DefaultBreakerCooldown is how long an open breaker refuses calls
	// before it lets one through as a probe.
	DefaultBreakerCooldown = 10 * time.Second
	// maxBreakerCooldown bounds `breaker.cooldown`.
	maxBreakerCooldown = time.Hour
)

// BreakerRecorder is an optional capability of the Engine's Recorder: when
// it is implemented, each change of a hook's breaker is reported (for a
// gauge or a counter labelled by hook id). state is "open", "half-open" or
// "closed". It is called while the breaker holds its lock, so it must
// return at once.
type BreakerRecorder interface {
	BreakerStateChanged(hookID, state string)
}

// breaker is the circuit breaker of one hook's policy server or judge.
//
// Closed, every call goes to the server. After `failures` failures in a
// row (a transport error, the hook's timeout, a 429/502/503/504; not an
// answer that is merely not a verdict, see serverAnswered) it
// opens: calls then fail at once with ErrBreakerOpen, which the engine
// always blocks (on_timeout: allow covers a hook that failed, not one that
// was not asked), instead of each waiting the full timeout for a server
// that is down. After `cooldown` it is half-open: one call goes through as a probe
// while the others still fail at once; the probe's success closes it, its
// failure opens it for another cooldown.
//
// A call whose caller went away (its context cancelled, not timed out)
// counts neither way: it says nothing about the server. Failures that are
// hookgate's own (an event the body template cannot render) are never run
// through the breaker.
//
// A nil *breaker runs every call (the breaker is disabled). Each compiled
// configuration has its own breakers, so a reload starts them closed.
type breaker struct {
	id       string
	failures int
	cooldown time.Duration
	log      *slog.Logger
	rec      BreakerRecorder // nil: only the log hears of changes
	cb       *gobreaker.CircuitBreaker[Result]
}

// newBreaker builds the breaker that spec asks for: nil when it is
// disabled, the defaults for every field it leaves zero.
func newBreaker(spec *Spec, log *slog.Logger) (*breaker, error) {
	bs := BreakerSpec{}
	if spec.Breaker != nil {
		bs = *spec.Breaker
	}
	switch {
	case bs.Failures < 0:
		return nil, fmt.Errorf("breaker.failures: %d is negative", bs.Failures)
	case bs.Cooldown < 0:
		return nil, fmt.Errorf("breaker.cooldown: %s is negative", bs.Cooldown)
	case bs.Cooldown > maxBreakerCooldown:
		return nil, fmt.Errorf("breaker.cooldown: %s exceeds %s", bs.Cooldown, maxBreakerCooldown)
	case bs.Disabled:
		return nil, nil
	}
	if log == nil {
		log = slog.Default()
	}
	b := &breaker{
		id:       spec.ID,
		failures: bs.Failures,
		cooldown: bs.Cooldown,
		log:      log,
	}
	if b.failures == 0 {
		b.failures = DefaultBreakerFailures
	}
	if b.cooldown == 0 {
		b.cooldown = DefaultBreakerCooldown
	}
	b.cb = gobreaker.NewCircuitBreaker[Result](gobreaker.Settings{
		Name:        spec.ID,
		MaxRequests: 1, // one probe when half-open
		Timeout:     b.cooldown,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return c.ConsecutiveFailures >= uint32(b.failures)
		},
		IsExcluded: func(err error) bool { _, ok := errors.AsType[callerGone](err); return ok },
		// A server that answered, however uselessly, is up: only its
		// silence and its unavailability count towards opening.
		IsSuccessful: func(err error) bool {
			_, answered := errors.AsType[serverAnswered](err)
			return err == nil || answered
		},
		OnStateChange: b.changed,
	})
	return b, nil
}

// callerGone wraps the error of a call whose caller cancelled it, so that
// the breaker counts it neither as a success nor as a failure.
type callerGone struct{ err error }

func (e callerGone) Error() string { return e.err.Error() }
func (e callerGone) Unwrap() error { return e.err }

// serverAnswered wraps the failure of a call that the server answered
// at once with something that is not a verdict: a status other than 429,
// 502, 503 or 504, a body that does not decode, a judge's refusal. The
// call still fails closed, but the breaker counts the server as up: the
// input could not be judged, which says nothing of the server, and a few
// such inputs from one session must not block every session's calls for
// a cool-down. Timeouts, transport errors and the unavailability statuses
// count as failures.
type serverAnswered struct{ err error }

func (e serverAnswered) Error() string { return e.err.Error() }
func (e serverAnswered) Unwrap() error { return e.err }

// unavailable reports the HTTP statuses by which a server says it cannot
// serve now, which count towards opening a breaker.
func unavailable(status int) bool {
	return status == 429 || status == 502 || status == 503 || status == 504
}

// errLateVerdict is the failure of a call that answered only after its
// deadline: the engine records it as a timeout, and the breaker counts it
// as one.
var errLateVerdict = errors.New("verdict arrived after the deadline")

// do runs call through the breaker. ctx is the context call runs under
// (the hook's timeout), read to tell a timeout from a caller that left.
// When the breaker refuses, call is not run and the error wraps
// ErrBreakerOpen.
func (b *breaker) do(ctx context.Context, call func() (Result, error)) (Result, error) {
	if b == nil {
		return call()
	}
	res, err := b.cb.Execute(func() (Result, error) {
		res, err := call()
		switch cerr := ctx.Err(); {
		case err == nil && errors.Is(cerr, context.DeadlineExceeded):
			return res, fmt.Errorf("%w: %w", errLateVerdict, cerr)
		case err != nil && errors.Is(cerr, context.Canceled):
			return res, callerGone{err}
		}
		return res, err
	})
	switch {
	case errors.Is(err, gobreaker.ErrOpenState):
		return Result{}, fmt.Errorf("%w after %d failures in a row; next probe within %s", ErrBreakerOpen, b.failures, b.cooldown)
	case errors.Is(err, gobreaker.ErrTooManyRequests):
		return Result{}, fmt.Errorf("%w: half-open, its probe still running", ErrBreakerOpen)
	}
	if gone, ok := errors.AsType[callerGone](err); ok {
		err = gone.err
	}
	return res, err
}

// changed logs a change of state and reports it to the recorder.
func (b *breaker) changed(_ string, from, to gobreaker.State) {
	switch {
	case to == gobreaker.StateOpen && from == gobreaker.StateHalfOpen:
		b.log.Warn("hook breaker probe failed: open again", "hook", b.id, "cooldown", b.cooldown)
	case to == gobreaker.StateOpen:
		b.log.Warn("hook breaker opened: calls fail closed at once", "hook", b.id, "failures", b.failures, "cooldown", b.cooldown)
	case to == gobreaker.StateHalfOpen:
		b.log.Info("hook breaker half-open: the next call probes", "hook", b.id)
	case to == gobreaker.StateClosed:
		b.log.Info("hook breaker closed: the probe succeeded", "hook", b.id)
	}
	if b.rec != nil {
		b.rec.BreakerStateChanged(b.id, to.String())
	}
}

// breakered is implemented by handlers that own a breaker, so that Compile
// can hand it the Engine's recorder.
type breakered interface {
	circuitBreaker() *breaker
}

// observeBreaker hands h's breaker the recorder when both exist and the
// recorder implements BreakerRecorder. It runs once, before the handler
// is used.
func observeBreaker(h Handler, rec Recorder) {
	bh, ok := h.(breakered)
	if !ok {
		return
	}
	b := bh.circuitBreaker()
	if br, ok := rec.(BreakerRecorder); ok && b != nil {
		b.rec = br
	}
}
