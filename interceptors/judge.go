package interceptors

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/hookgate/hookgate/hooks"
)

// verdict is what pre_tool_use decided for one tool call.
type verdict struct {
	// Decision is Allow, Rewrite or Block.
	Decision hooks.Decision
	// Arguments are the arguments to emit: the original bytes when allowed,
	// the rewritten ones on a rewrite.
	Arguments []byte
	// HookID and Reason explain a block.
	HookID, Reason string
	// OnBlock is the blocking hook's on_block, if it set one.
	OnBlock string
}

// hookgateBlocker names hookgate itself as the blocker of a call it
// refuses before any hook runs (arguments that are not a JSON object).
const hookgateBlocker = "hookgate"

// judgeToolCall runs pre_tool_use for one completed call. Arguments that
// are not a JSON object are never passed on: they are blocked with a clear
// reason, whatever the hooks would have said.
func judgeToolCall(ctx context.Context, engine *hooks.Engine, ev *hooks.Event, args []byte) verdict {
	if reason := lookAlike(engine, ev); reason != "" {
		return verdict{Decision: hooks.Block, HookID: hookgateBlocker, Reason: reason}
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if !gjson.ValidBytes(args) {
		return verdict{Decision: hooks.Block, HookID: hookgateBlocker, Reason: "the tool call's arguments are not valid JSON"}
	}
	input, err := decodeObject(args)
	if err != nil {
		return verdict{Decision: hooks.Block, HookID: hookgateBlocker, Reason: "the tool call's arguments are not a JSON object"}
	}
	ev.ToolInput = input
	out := engine.Dispatch(ctx, ev)
	switch out.Decision {
	case hooks.Allow:
		return verdict{Decision: hooks.Allow, Arguments: args}
	case hooks.Rewrite:
		if out.ToolInput == nil {
			return verdict{Decision: hooks.Allow, Arguments: args}
		}
		rewritten, err := patchObject(args, input, out.ToolInput)
		if err != nil {
			return verdict{Decision: hooks.Block, HookID: hookgateBlocker, Reason: "a hook's rewrite could not be encoded"}
		}
		return verdict{Decision: hooks.Rewrite, Arguments: rewritten}
	default:
		// Block, and anything unexpected from a blocking event, fails closed.
		return verdict{Decision: hooks.Block, HookID: out.HookID, Reason: out.Reason, OnBlock: out.OnBlock}
	}
}

// patchObject applies the fields that differ between before and after to
// the original bytes with sjson, so every untouched field keeps its bytes,
// order and number formatting.
func patchObject(orig []byte, before, after map[string]any) ([]byte, error) {
	out := append([]byte(nil), orig...)
	keys := make([]string, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var err error
	for _, k := range keys {
		if old, ok := before[k]; ok && reflect.DeepEqual(old, after[k]) {
			continue
		}
		if out, err = sjson.SetBytes(out, escapePathKey(k), after[k]); err != nil {
			return nil, err
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			if out, err = sjson.DeleteBytes(out, escapePathKey(k)); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// escapePathKey makes a key usable as one sjson path element.
func escapePathKey(k string) string {
	var b []byte
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '.', '*', '?', '|', '#', '@', '\\', ':', '!', '=', '<', '>', '%':
			b = append(b, '\\')
		}
		b = append(b, k[i])
	}
	return string(b)
}

// plainToolName is what a tool name may hold: letters, digits and a few
// separators, all ASCII. A name outside it (a Cyrillic е in "еxec", a
// full-width letter, a zero-width space, a trailing blank) could dodge a
// matcher written for the ASCII name while an agent still runs the tool.
func plainToolName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_-.:/", c) >= 0) {
			return false
		}
	}
	return true
}

// lookAlike refuses a tool name that is not plain ASCII, and one that
// differs only in letter case from a name the policy's matchers want
// ("EXEC" beside "^exec$"). It returns "" for a name to judge normally.
//
// Members of one tool class that differ only in case (Claude Code's Bash,
// opencode's and pi's bash; see toolclass.CaseMates) are not look-alikes
// of each other: the engine's matchers take a policy naming one as naming
// them all, so Wants holds and the call is judged by those hooks.
func lookAlike(engine *hooks.Engine, ev *hooks.Event) string {
	if !plainToolName(ev.ToolName) {
		return fmt.Sprintf("tool name %q is not plain ASCII (letters, digits, _ - . : /), so hookgate cannot match it against its policy", ev.ToolName)
	}
	folded := strings.ToLower(ev.ToolName)
	if folded == ev.ToolName || engine == nil || engine.Wants(ev) {
		return ""
	}
	probe := *ev
	probe.ToolName = folded
	if engine.Wants(&probe) {
		return fmt.Sprintf("tool name %q differs only in case from %q, which the policy names", ev.ToolName, folded)
	}
	return ""
}
