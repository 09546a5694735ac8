package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/dop251/goja"
)

// A script's result is read one of two ways, to the same Result:
//
//   - directly (readPlainResult), when it is a plain object whose members
//     are among decision, reason, additionalContext and updatedResult, each
//     a string or undefined: what nearly every call returns;
//   - otherwise as before: JSON.stringify (the sandbox's capped one), then
//     strict decoding (decodeScriptResult), which knows every other shape
//     (updatedInput, sideEffects, null members, keys in another letter case,
//     toJSON, proxies, getters that throw) and every error.
//
// The direct way gives up, rather than guess, on anything it does not
// know, so both ways agree on every result (script_result_test.go).

// scriptPlainResultBytes bounds the strings the direct way reads; a result
// with more goes the exact way, which applies scriptMaxResultBytes to its
// JSON encoding.
const scriptPlainResultBytes = 64 << 10

// reflectTypeMap is what goja exports an ordinary object as (proxies,
// arrays, boxed primitives and dates export as other types).
var reflectTypeMap = reflect.TypeFor[map[string]any]()

// readPlainResult reads ret directly if it has the plain shape; ok is false
// when the result must be stringified and decoded instead. objectProto is
// the runtime's Object.prototype, as it was before any script ran.
func readPlainResult(rt *goja.Runtime, objectProto *goja.Object, ret goja.Value) (res Result, ok bool, err error) {
	obj, isObj := ret.(*goja.Object)
	if !isObj || obj.ExportType() != reflectTypeMap || obj.Prototype() != objectProto {
		return Result{}, false, nil
	}
	var (
		decision goja.String
		size     int
	)
	// A member's getter may throw (or be interrupted): that goes the exact
	// way, which reports it as stringify would.
	if ex := rt.Try(func() {
		for _, k := range obj.Keys() {
			v := obj.Get(k)
			if goja.IsUndefined(v) {
				continue // JSON.stringify leaves it out
			}
			s, isStr := v.(goja.String)
			if !isStr {
				ok = false
				return
			}
			size += s.Length()
			switch k {
			case "decision":
				decision = s
			case "reason":
				res.Reason = s.String()
			case "additionalContext":
				res.AdditionalContext = s.String()
			case "updatedResult":
				r := s.String()
				res.UpdatedResult = &r
			default:
				ok = false
				return
			}
		}
		ok = true
	}); ex != nil || !ok || size > scriptPlainResultBytes {
		return Result{}, false, nil
	}
	if decision == nil {
		return Result{}, true, errors.New("script: invalid result: decision is missing")
	}
	res.Decision, err = checkDecision(decision.String())
	if err != nil {
		return Result{}, true, err
	}
	return res, true, nil
}

// scriptResult is the strict shape of a script's return value.
type scriptResult struct {
	Decision          *string        `json:"decision"`
	Reason            string         `json:"reason"`
	UpdatedInput      map[string]any `json:"updatedInput"`
	UpdatedResult     *string        `json:"updatedResult"`
	AdditionalContext string         `json:"additionalContext"`
	SideEffects       []string       `json:"sideEffects"`
}

// decodeScriptResult decodes a result strictly: an unknown key, a value
// of the wrong type, or a missing or unknown decision is an error.
func decodeScriptResult(raw []byte) (Result, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var r scriptResult
	if err := dec.Decode(&r); err != nil {
		return Result{}, fmt.Errorf("script: invalid result: %w", err)
	}
	if r.Decision == nil {
		return Result{}, errors.New("script: invalid result: decision is missing")
	}
	d, err := checkDecision(*r.Decision)
	if err != nil {
		return Result{}, err
	}
	return Result{
		Decision:          d,
		Reason:            r.Reason,
		UpdatedInput:      r.UpdatedInput,
		UpdatedResult:     r.UpdatedResult,
		AdditionalContext: r.AdditionalContext,
		SideEffects:       r.SideEffects,
	}, nil
}

// checkDecision accepts the decisions a script may return.
func checkDecision(s string) (Decision, error) {
	switch d := Decision(s); d {
	case Allow, Rewrite, Block:
		return d, nil
	default:
		return "", fmt.Errorf("script: invalid result: decision %q is not allow, rewrite or block", d)
	}
}
