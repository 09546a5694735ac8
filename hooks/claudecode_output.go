package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// claudeCodeOutput is the JSON a Claude Code hook may print on stdout.
// Fields of Claude Code features a proxy has no use for (suppressOutput,
// PermissionRequest's decision object, ...) are accepted and ignored.
type claudeCodeOutput struct {
	Continue           *bool               `json:"continue"`
	StopReason         string              `json:"stopReason"`
	SystemMessage      string              `json:"systemMessage"`
	Decision           string              `json:"decision"`
	Reason             string              `json:"reason"`
	HookSpecificOutput *claudeCodeSpecific `json:"hookSpecificOutput"`
}

// claudeCodeSpecific is the hookSpecificOutput object.
type claudeCodeSpecific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput"`
}

// decodeClaudeCodeOutput reads a Claude Code hook's exit code and output
// with Claude Code's meaning, failing closed where Claude Code fails open:
//   - exit 2 blocks with stderr as the reason (on Stop it is recorded);
//   - any other non-zero exit is an error (Claude Code would go on);
//   - exit 0 with empty stdout allows; plain text on stdout is context for
//     UserPromptSubmit and SessionStart, and an error elsewhere;
//   - exit 0 with a JSON object is read field by field (see below).
func decodeClaudeCodeOutput(ev *Event, exitCode int, stdout, stderr []byte) (Result, error) {
	stopLike := ev.Event == Stop || ev.Event == SubagentStop
	switch exitCode {
	case 0:
	case 2:
		reason := string(bytes.TrimSpace(stderr))
		if reason == "" {
			reason = "claude_code hook exited 2"
		}
		if stopLike {
			return keepWorkingRecorded(reason, nil), nil
		}
		return Result{Decision: Block, Reason: reason}, nil
	default:
		return Result{}, fmt.Errorf("non-zero exit: Claude Code would go on, hookgate fails closed%s", stderrSuffix(stderr))
	}

	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return Result{Decision: Allow}, nil
	}
	if trimmed[0] != '{' {
		if ev.Event == UserPromptSubmit || ev.Event == SessionStart {
			return Result{Decision: Allow, AdditionalContext: string(trimmed)}, nil
		}
		return Result{}, fmt.Errorf("stdout is neither empty nor a JSON object: %q", excerpt(trimmed, 80))
	}
	var out claudeCodeOutput
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&out); err != nil {
		return Result{}, fmt.Errorf("decode stdout: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Result{}, errors.New("decode stdout: trailing data after the JSON object")
	}
	return claudeCodeResult(ev, &out)
}

// claudeCodeResult turns a decoded Claude Code output into a Result. Every
// signal that blocks in Claude Code blocks here (continue: false, a deny,
// an ask or defer with no approval gate to ask, a top-level "block"); when
// several are given, any one of them blocks.
func claudeCodeResult(ev *Event, out *claudeCodeOutput) (Result, error) {
	spec := out.HookSpecificOutput
	if spec == nil {
		spec = &claudeCodeSpecific{}
	}
	if want := claudeCodeEvents[ev.Event]; spec.HookEventName != "" && spec.HookEventName != want {
		return Result{}, fmt.Errorf("hookSpecificOutput.hookEventName is %q, the event is %s", spec.HookEventName, want)
	}
	var sideEffects []string
	if out.SystemMessage != "" {
		sideEffects = append(sideEffects, "claude_code systemMessage: "+out.SystemMessage)
	}

	var reasons []string
	if out.Continue != nil && !*out.Continue {
		reasons = append(reasons, orDefault(out.StopReason, "claude_code hook asked to stop (continue: false)"))
	}
	switch spec.PermissionDecision {
	case "", "allow":
	case "deny":
		reasons = append(reasons, orDefault(spec.PermissionDecisionReason, "denied by claude_code hook"))
	case "ask", "defer":
		r := fmt.Sprintf("claude_code hook asked for confirmation (permissionDecision %q) and no approval gate handles it here: blocked", spec.PermissionDecision)
		if spec.PermissionDecisionReason != "" {
			r += ": " + spec.PermissionDecisionReason
		}
		reasons = append(reasons, r)
	default:
		return Result{}, fmt.Errorf("hookSpecificOutput.permissionDecision %q is not one of allow, deny, ask, defer", spec.PermissionDecision)
	}
	switch out.Decision {
	case "", "approve":
	case "block":
		reasons = append(reasons, orDefault(out.Reason, "blocked by claude_code hook"))
	default:
		return Result{}, fmt.Errorf("decision %q is not one of block, approve", out.Decision)
	}

	if len(reasons) > 0 {
		if ev.Event == Stop || ev.Event == SubagentStop {
			return keepWorkingRecorded(reasons[0], sideEffects), nil
		}
		return Result{Decision: Block, Reason: reasons[0], SideEffects: sideEffects}, nil
	}

	res := Result{
		Decision:          Allow,
		Reason:            spec.PermissionDecisionReason,
		AdditionalContext: spec.AdditionalContext,
		SideEffects:       sideEffects,
	}
	if ev.Event == PreToolUse && isJSONValue(spec.UpdatedInput) {
		var replacement map[string]any
		if err := json.Unmarshal(spec.UpdatedInput, &replacement); err != nil || replacement == nil {
			return Result{}, errors.New("hookSpecificOutput.updatedInput is not a JSON object")
		}
		changed, err := claudeCodeInputDiff(ev.ToolInput, replacement)
		if err != nil {
			return Result{}, err
		}
		if len(changed) > 0 {
			res.UpdatedInput = changed
			res.Decision = Rewrite
		}
	}
	if ev.Event == PostToolUse && isJSONValue(spec.UpdatedMCPToolOutput) {
		text := string(spec.UpdatedMCPToolOutput)
		var s string
		if json.Unmarshal(spec.UpdatedMCPToolOutput, &s) == nil {
			text = s
		}
		res.UpdatedResult = &text
		res.Decision = Rewrite
	}
	return res, nil
}

// keepWorkingRecorded answers a Stop hook that asked the agent to keep
// working. A proxy cannot make the agent go on, so the request is recorded
// (reason and side effect, for the audit trail) and the stop is allowed.
func keepWorkingRecorded(reason string, sideEffects []string) Result {
	note := "claude_code stop hook asked the agent to keep working, which a proxy cannot do (recorded, not acted on): " + reason
	return Result{Decision: Allow, Reason: note, SideEffects: append(sideEffects, note)}
}

// claudeCodeInputDiff compares Claude Code's whole-replacement updatedInput with
// the current tool input and returns only what differs: fields changed or
// added with their new value, fields the replacement dropped as nil. So a
// hook that rewrites one field and echoes the rest is seen as rewriting
// one field, and unchanged fields are never counted as stripped mutations.
// The current input is compared after a JSON round trip so that Go values
// (an int, say) compare equal to what the hook read and echoed.
func claudeCodeInputDiff(current, replacement map[string]any) (map[string]any, error) {
	var normal map[string]any
	if len(current) > 0 {
		raw, err := json.Marshal(current)
		if err != nil {
			return nil, fmt.Errorf("encode current tool input: %w", err)
		}
		if err := json.Unmarshal(raw, &normal); err != nil {
			return nil, fmt.Errorf("decode current tool input: %w", err)
		}
	}
	changed := make(map[string]any)
	for k, v := range replacement {
		if old, ok := normal[k]; !ok || !reflect.DeepEqual(old, v) {
			changed[k] = v
		}
	}
	for k := range normal {
		if _, ok := replacement[k]; !ok {
			changed[k] = nil
		}
	}
	return changed, nil
}

// isJSONValue reports whether raw holds a value other than null.
func isJSONValue(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
