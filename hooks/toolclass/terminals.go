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
// write_stdin calls is judged whole. It holds only terminals with a line
// half typed, at most maxKeys of them (the least recently used one is
// forgotten past that) and maxBytes of each line (a longer one keeps its
// start and reads as truncated).
//
// A forgotten half-typed line is remembered as lost (as many of those
// again): the next call on that terminal reads as truncated, which
// deny_patterns blocks, rather than as a fresh line, until a newline
// ends it or a call discards it (^C or ^U first). What a restart forgets
// is simply absent: the next call is judged on what it types itself.
//
// Only allowed calls are committed: a blocked call's characters never
// reached the terminal. A call committed twice (the same call id judged
// again) is seen from the line as it was before it, while that line is
// unfinished.
type Terminals struct {
	maxKeys, maxBytes int

	mu    sync.Mutex
	lines map[TerminalKey]*list.Element // of *terminalLine
	order *list.List                    // front: most recently used
	// lost are the terminals whose half-typed line was forgotten.
	lost      map[TerminalKey]*list.Element // of TerminalKey
	lostOrder *list.List
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
	return &Terminals{maxKeys: maxKeys, maxBytes: maxBytes, lines: map[TerminalKey]*list.Element{}, order: list.New(),
		lost: map[TerminalKey]*list.Element{}, lostOrder: list.New()}
}

// Typed returns the unfinished line of k as call callID sees it.
func (t *Terminals) Typed(k TerminalKey, callID string) (text string, truncated bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	el, ok := t.lines[k]
	if !ok {
		_, lost := t.lost[k]
		return "", lost
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
	rest, truncated := full, typedTruncated && !DiscardsLine(chars)
	if i := strings.LastIndexByte(full, '\n'); i >= 0 {
		rest, truncated = full[i+1:], false
	}
	if len(rest) > t.maxBytes {
		rest, truncated = rest[:t.maxBytes], true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if el, ok := t.lost[k]; ok && (!truncated || DiscardsLine(chars)) {
		delete(t.lost, k) // a newline ended the lost line, or ^C or ^U discarded it
		t.lostOrder.Remove(el)
	}
	el, ok := t.lines[k]
	if rest == "" && !truncated {
		if ok { // nothing pending: nothing to remember
			delete(t.lines, k)
			t.order.Remove(el)
		}
		return
	}
	if ok {
		t.order.MoveToFront(el)
		l := el.Value.(*terminalLine)
		l.lastCall, l.before, l.beforeTruncated = callID, typed, typedTruncated
		l.text, l.truncated = strings.Clone(rest), truncated
		return
	}
	for t.order.Len() >= t.maxKeys {
		oldest := t.order.Back()
		key := oldest.Value.(*terminalLine).key
		delete(t.lines, key)
		t.order.Remove(oldest)
		t.markLost(key)
	}
	l := &terminalLine{key: k, text: strings.Clone(rest), truncated: truncated, lastCall: callID}
	t.lines[k] = t.order.PushFront(l)
}

// markLost remembers that k's half-typed line was forgotten.
func (t *Terminals) markLost(k TerminalKey) {
	if _, ok := t.lost[k]; ok {
		return
	}
	for t.lostOrder.Len() >= t.maxKeys {
		oldest := t.lostOrder.Back()
		delete(t.lost, oldest.Value.(TerminalKey))
		t.lostOrder.Remove(oldest)
	}
	t.lost[k] = t.lostOrder.PushFront(k)
}

// size is how many terminal sessions are remembered.
func (t *Terminals) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.order.Len()
}
