package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dop251/goja"
)

// scriptMaxDepth bounds the nesting of the event given to a script (tool
// arguments nested thousands deep must not recurse without bound).
const scriptMaxDepth = 128

var errEventTooLarge = fmt.Errorf("event exceeds %d bytes", ScriptMaxEventBytes)

// jsConverter builds the event object a script receives directly in the
// runtime (plain JavaScript objects and arrays, as JSON.parse would make,
// without the cost of encoding and parsing). Fields that are empty are
// absent, as in the event JSON. The size is accounted as it is built: an
// event over ScriptMaxEventBytes, or nested deeper than scriptMaxDepth, is
// an error.
//
// A key "__proto__" is an own member, as JSON.parse makes it: assigned,
// it would replace the object's prototype instead, and what the agent sent
// under it would vanish from Object.keys and JSON.stringify, where a
// policy may look for it.
//
// A scriptVM keeps one converter, so the scratch space for sorting keys is
// reused between calls.
type jsConverter struct {
	rt     *goja.Runtime
	budget int
	keys   []string // scratch: the sorted keys of the maps being converted
}

// event converts ev into the object a script receives (see jsConverter).
func (c *jsConverter) event(ev *Event) (goja.Value, error) {
	c.budget = ScriptMaxEventBytes
	defer c.release()
	o := c.rt.NewObject()
	c.str(o, "event", string(ev.Event))
	c.str(o, "eventId", ev.EventID)
	c.str(o, "sessionId", ev.SessionID)
	c.str(o, "parentSessionId", ev.ParentSessionID)
	c.str(o, "tenant", ev.Tenant)
	c.str(o, "agent", ev.Agent)
	c.str(o, "user", ev.User)
	c.str(o, "provider", ev.Provider)
	c.str(o, "model", ev.Model)
	c.str(o, "toolName", ev.ToolName)
	c.str(o, "toolCallId", ev.ToolCallID)
	if ev.ToolInput != nil {
		v, err := c.value(ev.ToolInput, 0)
		if err != nil {
			return nil, fmt.Errorf("toolInput: %w", err)
		}
		define(o, "toolInput", v)
	}
	if ev.Tool != nil {
		v, err := c.value(toolMap(ev.Tool), 0)
		if err != nil {
			return nil, fmt.Errorf("tool: %w", err)
		}
		define(o, "tool", v)
	}
	if ev.ToolResult != nil {
		c.budget -= len(*ev.ToolResult) + 16
		if c.budget < 0 {
			return nil, errEventTooLarge
		}
		define(o, "toolResult", c.rt.ToValue(*ev.ToolResult))
	}
	c.str(o, "prompt", ev.Prompt)
	c.str(o, "response", ev.Response)
	if ev.Metadata != nil {
		v, err := c.value(ev.Metadata, 0)
		if err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		define(o, "metadata", v)
	}
	if c.budget < 0 {
		return nil, errEventTooLarge
	}
	return o, nil
}

// release drops the scratch keys' references to the event's strings.
func (c *jsConverter) release() {
	clear(c.keys[:cap(c.keys)])
	c.keys = c.keys[:0]
}

// str defines a string member unless it is empty.
func (c *jsConverter) str(o *goja.Object, k, v string) {
	if v != "" {
		c.budget -= len(k) + len(v) + 6
		define(o, k, c.rt.ToValue(v))
	}
}

// define makes k an own enumerable, writable, configurable data property
// of o, a fresh ordinary object (so it cannot fail). An assignment does
// that for every key but "__proto__", and costs less than defining.
func define(o *goja.Object, k string, v goja.Value) {
	if k == "__proto__" {
		_ = o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		return
	}
	_ = o.Set(k, v)
}

// value converts a JSON-shaped Go value. Other Go types go through their
// JSON encoding, so a script sees what a JSON consumer would.
func (c *jsConverter) value(v any, depth int) (goja.Value, error) {
	if depth > scriptMaxDepth {
		return nil, fmt.Errorf("nested deeper than %d", scriptMaxDepth)
	}
	if c.budget < 0 {
		return nil, errEventTooLarge
	}
	c.budget -= 4
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case string:
		c.budget -= len(x)
		return c.rt.ToValue(x), nil
	case bool:
		return c.rt.ToValue(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return goja.Null(), nil
		}
		return c.rt.ToValue(x), nil
	case int, int64, int32, uint64, uint32, float32:
		f, _ := number(x)
		return c.rt.ToValue(f), nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %q: %w", string(x), err)
		}
		return c.rt.ToValue(f), nil
	case map[string]any:
		o := c.rt.NewObject()
		// The keys go on the shared scratch stack, sorted (the order
		// encoding/json would give); nested maps push theirs above and
		// pop them, so this map's keys are read by index, not by a slice
		// an append may have moved.
		start := len(c.keys)
		for k := range x {
			c.keys = append(c.keys, k)
		}
		slices.Sort(c.keys[start:])
		for i := start; i < start+len(x); i++ {
			k := c.keys[i]
			c.budget -= len(k)
			ev, err := c.value(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			define(o, k, ev)
		}
		c.keys = c.keys[:start]
		return o, nil
	case []any:
		vals := make([]any, len(x))
		for i, e := range x {
			ev, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			vals[i] = ev
		}
		return c.rt.NewArray(vals...), nil
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("encode %T: %w", x, err)
		}
		var generic any
		if err := json.Unmarshal(raw, &generic); err != nil {
			return nil, errors.New("re-decode value")
		}
		return c.value(generic, depth+1)
	}
}
