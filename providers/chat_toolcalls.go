package providers

import (
	"bytes"
	"fmt"

	"github.com/tidwall/gjson"
)

// Defaults for ToolCallLimits fields left at zero.
const (
	DefaultMaxToolArguments = 4 << 20
	DefaultMaxToolCalls     = 128
)

// ToolCallLimits bound what one ToolCallAssembler holds.
type ToolCallLimits struct {
	// MaxArgumentsBytes caps one call's decoded arguments. Zero means
	// DefaultMaxToolArguments.
	MaxArgumentsBytes int
	// MaxCalls caps the calls of one choice. Zero means DefaultMaxToolCalls.
	MaxCalls int
}

// ToolCall is one call assembled from deltas.
type ToolCall struct {
	// Ordinal numbers the calls of a choice from 0 in the order they
	// started. It is the assembler's own numbering, never the wire index.
	Ordinal int
	// WireIndex is the "index" of the delta that started the call; -1 when
	// it had none.
	WireIndex int
	// ID and Name are the first non-empty values seen ("" if none came;
	// Gemini's compatible endpoint sends "id":"").
	ID   string
	Name string
	// Arguments are the decoded fragments concatenated, exactly as sent;
	// they may be empty (Novita sends a name without an arguments key). The
	// slice aliases the assembler's storage: valid until its next Add,
	// Finish or Reset.
	Arguments []byte
	// Frames are the sequence numbers (as passed to Add) of the frames that
	// contributed to this call, ascending, without repeats.
	Frames []uint64
	// Complete is set once the call can be judged: early, when its
	// arguments form a complete JSON value and a later call has started, or
	// at Finish.
	Complete bool
	// Early reports a completion before Finish.
	Early bool

	checked int // len(Arguments) when last found not to be valid JSON
	gen     uint64
}

// ArgumentsMissing reports arguments that are empty or only whitespace.
// NormalizedArguments turns them into "{}".
func (c *ToolCall) ArgumentsMissing() bool { return len(bytes.TrimSpace(c.Arguments)) == 0 }

// NormalizedArguments returns the arguments to judge and to re-emit: "{}"
// when none were sent (a call to a function without parameters, which
// OpenAI itself encodes as "{}"), otherwise Arguments unchanged.
func (c *ToolCall) NormalizedArguments() []byte {
	if c.ArgumentsMissing() {
		return []byte("{}")
	}
	return c.Arguments
}

// ToolCallAssembler turns the tool-call deltas of ONE choice into calls.
// Deltas are routed to calls by these rules, which cover every recorded
// provider without trusting "index" alone:
//
//   - With a wire index: the latest call started with that index continues,
//     unless the delta carries a non-empty id, or name, that differs from
//     that call's (an index reused for a new call). Otherwise a new call
//     starts. Interleaving (0,1,0,1), indexes starting at 1 (OpenRouter
//     o4-mini) and repeated ids and names (Novita) all route correctly.
//   - Without one (Mistral, Ollama, Gemini compat): the latest call
//     continues, unless the delta carries a non-empty id different from
//     that call's, or carries no id but a non-empty name while the latest
//     call has another name, or was already fed by an earlier entry of the
//     same tool_calls array (several calls in one delta, as Gemini sends
//     with "id":""), or already holds complete JSON arguments.
//
// Empty ("") and null ids and names never start or rename a call
// (Alibaba repeats "id":"", Writer sends "id":null).
//
// A call is complete early when its arguments are valid JSON and a later
// call has started; Finish completes the rest. A fragment that arrives for a
// completed call is dropped when it is only whitespace, and fails Add with
// ErrCallAlreadyComplete otherwise, so a judged call can never change.
//
// Steady state allocates only per call (its id and name strings); Reset
// keeps buffers for reuse. Not safe for concurrent use.
type ToolCallAssembler struct {
	limits    ToolCallLimits
	calls     []ToolCall
	completed []int
	scratch   []byte
	gen       uint64
	finished  bool
}

// NewToolCallAssembler returns an empty assembler with the given limits.
func NewToolCallAssembler(limits ToolCallLimits) *ToolCallAssembler {
	if limits.MaxArgumentsBytes <= 0 {
		limits.MaxArgumentsBytes = DefaultMaxToolArguments
	}
	if limits.MaxCalls <= 0 {
		limits.MaxCalls = DefaultMaxToolCalls
	}
	return &ToolCallAssembler{limits: limits}
}

// Reset forgets all calls, keeping buffers and limits.
func (a *ToolCallAssembler) Reset() {
	for i := range a.calls {
		c := &a.calls[i]
		*c = ToolCall{Arguments: c.Arguments[:0], Frames: c.Frames[:0]}
	}
	a.calls = a.calls[:0]
	a.completed = a.completed[:0]
	a.finished = false
}

// Len returns the number of calls started.
func (a *ToolCallAssembler) Len() int { return len(a.calls) }

// Calls returns the calls by ordinal. The slice and its calls are valid
// until the next Add, Finish or Reset.
func (a *ToolCallAssembler) Calls() []ToolCall { return a.calls }

// Call returns the call with the given ordinal, or nil.
func (a *ToolCallAssembler) Call(ordinal int) *ToolCall {
	if ordinal < 0 || ordinal >= len(a.calls) {
		return nil
	}
	return &a.calls[ordinal]
}

// Finished reports whether Finish was called.
func (a *ToolCallAssembler) Finished() bool { return a.finished }

// Add routes the tool-call deltas of one chunk's choice; seq identifies the
// frame they came from. It returns the ordinals of calls that became
// complete early because of them (valid until the next call).
func (a *ToolCallAssembler) Add(seq uint64, deltas []ToolCallDelta) ([]int, error) {
	a.completed = a.completed[:0]
	if len(deltas) == 0 {
		return a.completed, nil
	}
	if a.finished {
		return a.completed, fmt.Errorf("tool calls: delta in frame %d after finish: %w", seq, ErrCallAlreadyComplete)
	}
	a.gen++
	for i := range deltas {
		d := &deltas[i]
		c, err := a.route(d, seq)
		if err != nil {
			return a.completed, err
		}
		if err := a.apply(c, d, seq); err != nil {
			return a.completed, err
		}
	}
	// Every call but the newest has a later call after it.
	for k := 0; k < len(a.calls)-1; k++ {
		c := &a.calls[k]
		if c.Complete || len(c.Arguments) == c.checked {
			continue
		}
		if len(bytes.TrimSpace(c.Arguments)) > 0 && gjson.ValidBytes(c.Arguments) {
			c.Complete, c.Early = true, true
			a.completed = append(a.completed, k)
		} else {
			c.checked = len(c.Arguments)
		}
	}
	return a.completed, nil
}

// Finish marks every open call complete (the choice finished, or the stream
// ended) and returns their ordinals (valid until the next call).
func (a *ToolCallAssembler) Finish() []int {
	a.completed = a.completed[:0]
	a.finished = true
	for k := range a.calls {
		if !a.calls[k].Complete {
			a.calls[k].Complete = true
			a.completed = append(a.completed, k)
		}
	}
	return a.completed
}

// route finds or starts the call a delta belongs to.
func (a *ToolCallAssembler) route(d *ToolCallDelta, seq uint64) (*ToolCall, error) {
	idSet, nameSet := d.ID.NonEmpty(), d.Name.NonEmpty()
	if d.HasIndex() {
		for k := len(a.calls) - 1; k >= 0; k-- {
			c := &a.calls[k]
			if c.WireIndex != d.Index {
				continue
			}
			if (idSet && c.ID != "" && !d.ID.Equal(c.ID)) || (nameSet && c.Name != "" && !d.Name.Equal(c.Name)) {
				break // the index now names another call
			}
			return c, nil
		}
		return a.start(d.Index, seq)
	}
	if len(a.calls) == 0 {
		return a.start(-1, seq)
	}
	c := &a.calls[len(a.calls)-1]
	var fresh bool
	switch {
	case idSet:
		fresh = !d.ID.Equal(c.ID)
	case nameSet:
		fresh = (c.Name != "" && !d.Name.Equal(c.Name)) ||
			c.gen == a.gen || // another entry of this array already went to c
			c.Complete ||
			(len(bytes.TrimSpace(c.Arguments)) > 0 && gjson.ValidBytes(c.Arguments))
	}
	if fresh {
		return a.start(-1, seq)
	}
	return c, nil
}

func (a *ToolCallAssembler) start(wireIndex int, seq uint64) (*ToolCall, error) {
	if len(a.calls) >= a.limits.MaxCalls {
		return nil, fmt.Errorf("tool calls: frame %d starts call %d, limit %d: %w", seq, len(a.calls)+1, a.limits.MaxCalls, ErrTooManyToolCalls)
	}
	n := len(a.calls)
	if n < cap(a.calls) {
		a.calls = a.calls[:n+1]
	} else {
		a.calls = append(a.calls, ToolCall{})
	}
	c := &a.calls[n]
	*c = ToolCall{Ordinal: n, WireIndex: wireIndex, Arguments: c.Arguments[:0], Frames: c.Frames[:0]}
	return c, nil
}

func (a *ToolCallAssembler) apply(c *ToolCall, d *ToolCallDelta, seq uint64) error {
	c.gen = a.gen
	if c.ID == "" && d.ID.NonEmpty() {
		c.ID = d.ID.Text()
	}
	if c.Name == "" && d.Name.NonEmpty() {
		c.Name = d.Name.Text()
	}
	if n := len(c.Frames); n == 0 || c.Frames[n-1] != seq {
		c.Frames = append(c.Frames, seq)
	}
	var frag []byte
	switch d.Arguments.State() {
	case FieldAbsent, FieldNull, FieldEmpty:
		return nil
	case FieldString:
		a.scratch = d.Arguments.AppendText(a.scratch[:0])
		frag = a.scratch
	default:
		// Some servers send arguments as a JSON object instead of a string
		// holding one; its text is the arguments.
		frag = d.Arguments.Raw
	}
	if c.Complete {
		if len(bytes.TrimSpace(frag)) == 0 {
			return nil
		}
		return fmt.Errorf("tool calls: frame %d adds %d bytes to call %d (%s) after it was complete: %w",
			seq, len(frag), c.Ordinal, c.Name, ErrCallAlreadyComplete)
	}
	if len(c.Arguments)+len(frag) > a.limits.MaxArgumentsBytes {
		return fmt.Errorf("tool calls: call %d (%s) arguments reach %d bytes in frame %d, limit %d: %w",
			c.Ordinal, c.Name, len(c.Arguments)+len(frag), seq, a.limits.MaxArgumentsBytes, ErrArgumentsTooLarge)
	}
	c.Arguments = append(c.Arguments, frag...)
	return nil
}
