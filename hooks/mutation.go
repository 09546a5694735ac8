package hooks

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
)

// allow_mutation entries.
const (
	mutationToolInput  = "toolInput"
	mutationToolResult = "toolResult"
)

// mutationRules is a hook's compiled allow_mutation: what its result may
// change. The zero value allows nothing.
type mutationRules struct {
	// inputAll allows every field of toolInput (the entry `toolInput`).
	inputAll bool
	// inputPaths are the allowed toolInput paths (`toolInput.a.b` is
	// ["a", "b"]); a path allows everything beneath it.
	inputPaths [][]string
	// result allows replacing the tool result (`toolResult`).
	result bool
}

// parseMutation compiles allow_mutation for a hook of event ev.
func parseMutation(entries []string, ev EventName) (mutationRules, []error) {
	var m mutationRules
	var errs []error
	for _, entry := range entries {
		switch {
		case entry == mutationToolResult:
			if ev != PostToolUse {
				errs = append(errs, fmt.Errorf("allow_mutation %q: only post_tool_use hooks may rewrite the tool result", entry))
				continue
			}
			m.result = true
		case entry == mutationToolInput || strings.HasPrefix(entry, mutationToolInput+"."):
			if ev != PreToolUse {
				errs = append(errs, fmt.Errorf("allow_mutation %q: only pre_tool_use hooks may rewrite the tool input", entry))
				continue
			}
			if entry == mutationToolInput {
				m.inputAll = true
				continue
			}
			path := strings.Split(strings.TrimPrefix(entry, mutationToolInput+"."), ".")
			if slices.Contains(path, "") {
				errs = append(errs, fmt.Errorf("allow_mutation %q: empty path segment", entry))
				continue
			}
			m.inputPaths = append(m.inputPaths, path)
		default:
			errs = append(errs, fmt.Errorf("allow_mutation %q: want toolInput, toolInput.<field>[.<field>...] or toolResult", entry))
		}
	}
	return m, errs
}

type allowance int

const (
	denied  allowance = iota
	allowed           // the path and everything beneath it
	partial           // only some paths beneath it
)

// allows says how far the rules allow rewriting path (segments below toolInput).
func (m *mutationRules) allows(path []string) allowance {
	if m.inputAll {
		return allowed
	}
	out := denied
	for _, p := range m.inputPaths {
		if len(p) <= len(path) && slices.Equal(p, path[:len(p)]) {
			return allowed
		}
		if len(p) > len(path) && slices.Equal(p[:len(path)], path) {
			out = partial
		}
	}
	return out
}

// mergeInput merges upd into cur field by field, taking only what the rules
// allow. A field whose new value equals the current one is no change: it is
// neither applied nor counted as stripped (a hook may hand back the whole
// input with one field changed). It returns the merged input (nil when
// nothing changed) and the dotted paths of the fields it stripped. cur is
// never modified: changed maps are copied along the path.
func (m *mutationRules) mergeInput(cur, upd map[string]any) (map[string]any, []string) {
	var stripped []string
	merged, changed := m.merge(cur, upd, nil, &stripped)
	if !changed {
		merged = nil
	}
	return merged, stripped
}

func (m *mutationRules) merge(cur, upd map[string]any, prefix []string, stripped *[]string) (map[string]any, bool) {
	out := cur
	changed := false
	keys := slices.Sorted(maps.Keys(upd))
	for _, k := range keys {
		nv := upd[k]
		ov, exists := cur[k]
		if exists && jsonEqual(ov, nv) {
			continue
		}
		path := append(slices.Clip(prefix), k)
		var value any
		switch m.allows(path) {
		case allowed:
			value = nv
		case partial:
			nm, isMap := nv.(map[string]any)
			om, wasMap := ov.(map[string]any)
			if !isMap || (exists && !wasMap && ov != nil) {
				*stripped = append(*stripped, dotted(path))
				continue
			}
			sub, subChanged := m.merge(om, nm, path, stripped)
			if !subChanged {
				continue
			}
			value = sub
		default:
			*stripped = append(*stripped, dotted(path))
			continue
		}
		if !changed {
			out = make(map[string]any, len(cur)+1)
			maps.Copy(out, cur)
			changed = true
		}
		out[k] = value
	}
	return out, changed
}

// changedFields lists the fields of upd that differ from cur (all of them
// stripped when a hook may not rewrite at all).
func changedFields(cur, upd map[string]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(upd)) {
		if ov, ok := cur[k]; ok && jsonEqual(ov, upd[k]) {
			continue
		}
		out = append(out, dotted([]string{k}))
	}
	return out
}

func dotted(path []string) string {
	return mutationToolInput + "." + strings.Join(path, ".")
}

// jsonEqual compares two JSON-shaped values (as decoded by encoding/json,
// YAML or a handler), treating numbers of different Go types as equal when
// their values are.
func jsonEqual(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch av := a.(type) {
	case nil:
		return b == nil
	case string:
		bv, ok := b.(string)
		return ok && av == bv
	case bool:
		bv, ok := b.(bool)
		return ok && av == bv
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !jsonEqual(av[i], bv[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			y, ok := bv[k]
			if !ok || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uint32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil && !math.IsInf(f, 0)
	}
	return 0, false
}

// stripObserved records what an observing hook's result asked to change:
// an observer's result is never applied, so a rewrite it asked for (a
// post_tool_use hook from a tenant, or one without toolResult in
// allow_mutation) is stripped, logged and counted like a refused
// pre_tool_use rewrite, and the execution records the decision that took
// effect (allow), not the rewrite that was asked for.
func (e *Engine) stripObserved(h *hook, ev *Event, res Result, x *Execution) {
	if x.Decision != Allow && x.Decision != Rewrite {
		return
	}
	if res.UpdatedInput != nil && len(changedFields(ev.ToolInput, res.UpdatedInput)) > 0 {
		e.strip(h, x, []string{"updatedInput"})
	}
	if res.UpdatedResult != nil && (ev.ToolResult == nil || *ev.ToolResult != *res.UpdatedResult) {
		e.strip(h, x, []string{mutationToolResult})
	}
	if x.Decision == Rewrite {
		x.Decision = Allow
	}
}
