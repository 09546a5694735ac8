package toolclass

import (
	"container/list"
	"strings"
	"sync"
)

// Bounds of the terminal memory.
const (
	// DefaultTerminalKeys is how many terminal sessions are remembered;
	// past it the least recently used one is forgotten.
	DefaultTerminalKeys = 4096
	// DefaultTerminalBytes is how much of one unfinished line is kept;
	// a longer line keeps its start and is marked Truncated.
	DefaultTerminalBytes = 64 << 10
)

// TerminalKey names one terminal session: the hookgate session and tenant
// it belongs to, and the agent's own session id for it.
type TerminalKey struct {
	Session, Tenant, Terminal string
}

// Terminals remembers, per terminal session, the line typed so far and not
// yet completed by a newline, so that a command typed across several
// write_stdin calls is judged whole. It is bounded in sessions and bytes
// per session. What it has forgotten (evicted, or a restart) is simply
// absent: the next call is judged on what it types itself.
//
// Only allowed calls are committed: a blocked call's characters never
// reached the terminal. A call committed twice (the same call id judged
// again) is seen from the line as it was before it.
type Terminals struct {
	maxKeys, maxBytes int

	mu    sync.Mutex
	lines map[TerminalKey]*list.Element // of *terminalLine
	order *list.List                    // front: most recently used
}

type terminalLine struct {
	key TerminalKey
	// text is the unfinished line; truncated marks one cut at maxBytes.
	text      string
	truncated bool
	// lastCall is the call id committed last, before the line as it was
	// before that call.
	lastCall        string
	before          string
	beforeTruncated bool
}

// NewTerminals makes a terminal memory; zero bounds mean the defaults.
func NewTerminals(maxKeys, maxBytes int) *Terminals {
	if maxKeys <= 0 {
		maxKeys = DefaultTerminalKeys
	}
	if maxBytes <= 0 {
		maxBytes = DefaultTerminalBytes
	}
	return &Terminals{maxKeys: maxKeys, maxBytes: maxBytes, lines: map[TerminalKey]*list.Element{}, order: list.New()}
}

// Typed returns the unfinished line of k as call callID sees it.
func (t *Terminals) Typed(k TerminalKey, callID string) (text string, truncated bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	el, ok := t.lines[k]
	if !ok {
		return "", false
	}
	t.order.MoveToFront(el)
	l := el.Value.(*terminalLine)
	if callID != "" && callID == l.lastCall {
		return l.before, l.beforeTruncated
	}
	return l.text, l.truncated
}

// Commit records that call callID, seen with typed already on the line,
// typed chars into k.
func (t *Terminals) Commit(k TerminalKey, callID, typed string, typedTruncated bool, chars string) {
	full := EditLine(typed + chars)
	rest, truncated := full, typedTruncated
	if i := strings.LastIndexByte(full, '\n'); i >= 0 {
		rest, truncated = full[i+1:], false
	}
	if len(rest) > t.maxBytes {
		rest, truncated = rest[:t.maxBytes], true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.lines[k]; ok {
		t.order.MoveToFront(el)
		l := el.Value.(*terminalLine)
		l.lastCall, l.before, l.beforeTruncated = callID, typed, typedTruncated
		l.text, l.truncated = strings.Clone(rest), truncated
		return
	}
	if rest == "" && !truncated {
		return // nothing pending: nothing to remember
	}
	for t.order.Len() >= t.maxKeys {
		oldest := t.order.Back()
		delete(t.lines, oldest.Value.(*terminalLine).key)
		t.order.Remove(oldest)
	}
	l := &terminalLine{key: k, text: strings.Clone(rest), truncated: truncated, lastCall: callID}
	t.lines[k] = t.order.PushFront(l)
}

// Len is how many terminal sessions are remembered.
func (t *Terminals) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.order.Len()
}
