package hooks

import (
	"errors"
	"fmt"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
)

// DefaultCELCostLimit bounds one if_expr evaluation (CEL's runtime cost
// units: roughly one per operation plus one per ten characters a string
// function reads). An evaluation over the limit is an error, which fails
// closed like any other.
const DefaultCELCostLimit = 1_000_000

// condition is a compiled if_expr.
//
// Every Event field is a CEL variable named as in the event JSON
// (camelCase): strings for the scalar fields, toolInput and metadata as
// map(string, dyn), toolResult as a string ("" when absent). A field that
// does not apply to the event is its zero value. Selecting a key that the
// map lacks (toolInput.command when the tool has no command) is an
// evaluation error, which the dispatcher records as an error decision and
// resolves through on_timeout; guard optional keys with has():
//
//	has(toolInput.command) && toolInput.command.contains('rm -rf')
//
// or with optional syntax: toolInput.?command.orValue(”).contains('rm').
//
// tool is the normalised view of the call (see toolclass.View), with every
// key always present: tool.class ("" for a tool of no class),
// tool.command, tool.paths, tool.url, tool.urls, tool.interactive,
// tool.terminal, tool.opaque, tool.truncated:
//
//	tool.class == 'shell' && tool.command.matches('\\brm\\s+-[a-zA-Z]*r')
type condition struct {
	src string
	prg cel.Program
}

// celEnv is built once: building an environment costs milliseconds.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	opts := []cel.EnvOption{
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		ext.Strings(),
	}
	for _, name := range celStringVars {
		opts = append(opts, cel.Variable(name, cel.StringType))
	}
	opts = append(opts,
		cel.Variable("toolInput", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("metadata", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("tool", cel.MapType(cel.StringType, cel.DynType)),
	)
	opts = append(opts, celShellOptions()...)
	return cel.NewEnv(opts...)
})

// celStringVars are the Event fields exposed as CEL strings.
var celStringVars = []string{
	"event", "eventId", "sessionId", "parentSessionId", "tenant", "agent", "user",
	"provider", "model", "toolName", "toolCallId", "toolResult", "prompt", "response",
}

// compileCondition type-checks src against the event's fields. The result
// must be a bool (or dyn, checked at evaluation).
func compileCondition(src string, costLimit uint64) (*condition, error) {
	env, err := celEnv()
	if err != nil {
		return nil, fmt.Errorf("cel environment: %w", err)
	}
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		return nil, fmt.Errorf("if_expr: %w", iss.Err())
	}
	if out := ast.OutputType(); !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType) {
		return nil, fmt.Errorf("if_expr: must be a bool expression, is %s", out)
	}
	prg, err := env.Program(ast, cel.CostLimit(costLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, fmt.Errorf("if_expr: %w", err)
	}
	return &condition{src: src, prg: prg}, nil
}

// errNotBool is returned when a dyn expression evaluates to a non-bool.
var errNotBool = errors.New("if_expr did not evaluate to a bool")

// eval reports whether the hook applies to ev. An error is never a silent
// no-match: the caller records it as an error decision.
func (c *condition) eval(ev *Event) (bool, error) {
	out, _, err := c.prg.Eval(eventActivation{ev})
	if err != nil {
		return false, fmt.Errorf("if_expr %q: %w", c.src, err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("if_expr %q: %w (got %s)", c.src, errNotBool, out.Type())
	}
	return bool(b), nil
}

// eventActivation resolves CEL variables straight from an Event, so that an
// evaluation builds no map of variables.
type eventActivation struct{ ev *Event }

var emptyMap = map[string]any{}

// ResolveName implements interpreter.Activation.
func (a eventActivation) ResolveName(name string) (any, bool) {
	ev := a.ev
	switch name {
	case "event":
		return string(ev.Event), true
	case "eventId":
		return ev.EventID, true
	case "sessionId":
		return ev.SessionID, true
	case "parentSessionId":
		return ev.ParentSessionID, true
	case "tenant":
		return ev.Tenant, true
	case "agent":
		return ev.Agent, true
	case "user":
		return ev.User, true
	case "provider":
		return ev.Provider, true
	case "model":
		return ev.Model, true
	case "toolName":
		return ev.ToolName, true
	case "toolCallId":
		return ev.ToolCallID, true
	case "toolInput":
		if ev.ToolInput == nil {
			return emptyMap, true
		}
		return ev.ToolInput, true
	case "toolResult":
		if ev.ToolResult == nil {
			return "", true
		}
		return *ev.ToolResult, true
	case "prompt":
		return ev.Prompt, true
	case "response":
		return ev.Response, true
	case "metadata":
		if ev.Metadata == nil {
			return emptyMap, true
		}
		return ev.Metadata, true
	case "tool":
		return toolMap(ev.Tool), true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (eventActivation) Parent() interpreter.Activation { return nil }
