package hooks

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrClosed is the cause recorded when an event reaches an Engine that has
// been closed (the configuration was retired while the caller still held
// it). It fails closed like any other hook error.
var ErrClosed = errors.New("hook engine closed")

// ConfigError is one problem with one hook entry.
type ConfigError struct {
	// Index is the entry's position in the list given to Compile.
	Index int
	// ID is the entry's id as written (may be empty).
	ID string
	// Line is the entry's line in its file (0 when unknown).
	Line int
	// Origin is the file the entry came from (empty: the config).
	Origin string
	// Err is the problem.
	Err error
}

// Error names the entry (index, id, file and line) and the problem.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("hooks[")
	b.WriteString(strconv.Itoa(e.Index))
	b.WriteString("]")
	if e.ID != "" {
		b.WriteString(" ")
		b.WriteString(strconv.Quote(e.ID))
	}
	switch {
	case e.Origin != "" && e.Line > 0:
		fmt.Fprintf(&b, " (%s line %d)", e.Origin, e.Line)
	case e.Origin != "":
		fmt.Fprintf(&b, " (%s)", e.Origin)
	case e.Line > 0:
		fmt.Fprintf(&b, " (line %d)", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the problem.
func (e *ConfigError) Unwrap() error { return e.Err }

// ConfigErrors is every problem Compile found, in entry order. Compile
// reports them all at once so that an operator fixes a file in one pass.
type ConfigErrors []*ConfigError

// Error lists every problem, one per line.
func (es ConfigErrors) Error() string {
	if len(es) == 1 {
		return "invalid hook configuration: " + es[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "invalid hook configuration (%d errors):", len(es))
	for _, e := range es {
		b.WriteString("\n  ")
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the individual errors for errors.Is and errors.As.
func (es ConfigErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// ErrBreakerOpen is the cause recorded when a hook's circuit breaker
// refused a call without trying it: the policy server or judge failed too
// many times in a row and the breaker is open (or half-open with its probe
// in flight). The call fails closed like any other hook error, at once.
var ErrBreakerOpen = errors.New("circuit breaker open")
