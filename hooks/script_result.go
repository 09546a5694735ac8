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
//     toJSON, proxies, getters, boxed primitives) and every error.
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

// readPlainResult reads ret directly if it has the plain shape: an
// ordinary object (class Object, not a proxy or a boxed primitive) whose
// prototype is the Object.prototype of before any script ran, and whose
// enumerable own members are data properties holding strings. Members are
// read through their property descriptors, so no getter runs: the direct
// way runs no script code at all, and a result it gives up on is
// stringified exactly as before, its getters running once. handled is
// false when the result must be stringified and decoded instead; clean is
// false when the runtime must be discarded.
func (sb *sandbox) readPlainResult(ret goja.Value) (res Result, handled, clean bool, err error) {
	obj, isObj := ret.(*goja.Object)
	if !isObj || obj.ClassName() != "Object" || obj.ExportType() != reflectTypeMap || obj.Prototype() != sb.objectProto {
		return Result{}, false, true, nil
	}
	var (
		decision goja.String
		size     int
		plain    bool
	)
	if ex := sb.rt.Try(func() {
		for _, k := range obj.Keys() {
			d, err := sb.ownDescriptor(goja.Undefined(), obj, sb.rt.ToValue(k))
			if err != nil {
				panic(err)
			}
			desc, isDesc := d.(*goja.Object)
			if !isDesc || !absent(desc.Get("get")) || !absent(desc.Get("set")) {
				return // an accessor (or a member gone since Keys): the exact way
			}
			v := desc.Get("value")
			if absent(v) {
				continue // JSON.stringify leaves it out
			}
			s, isStr := v.(goja.String)
			if !isStr {
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
				return
			}
		}
		plain = true
	}); ex != nil {
		// Only an interrupt can get here (no script code ran): the call
		// fails, and the runtime is not reused.
		return Result{}, true, false, fmt.Errorf("script: read result: %w", scriptError(ex))
	}
	if !plain || size > scriptPlainResultBytes {
		return Result{}, false, true, nil
	}
	if decision == nil {
		return Result{}, true, true, errors.New("script: invalid result: decision is missing")
	}
	res.Decision, err = checkDecision(decision.String())
	if err != nil {
		return Result{}, true, true, err
	}
	return res, true, true, nil
}

// absent reports a member that is missing (nil) or undefined.
func absent(v goja.Value) bool { return v == nil || goja.IsUndefined(v) }

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
