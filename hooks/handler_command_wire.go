package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// This file is the wire contract hookgate speaks with hooks outside the
// process (command stdout and http bodies in hookgate's own format): how an
// event is written and how a verdict is read back. The Claude Code dialect
// lives in claudecode*.go.

// encodeEventJSON writes ev as the camelCase JSON every external hook
// receives. HTML escaping is off so that tool arguments such as `a && b`
// reach the hook byte for byte as the agent sent them.
func encodeEventJSON(ev *Event) ([]byte, error) {
	return marshalNoEscape(ev)
}

// marshalNoEscape is json.Marshal without HTML escaping and without the
// trailing newline json.Encoder adds.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// errEmptyOutput reports a hook that answered with nothing at all.
var errEmptyOutput = errors.New("empty output")

// decodeHookOutput reads a hook's verdict in hookgate's own format: exactly
// one JSON object with the fields of Result, surrounding whitespace allowed.
// Unknown fields, trailing data, a decision a hook may not give (error,
// timeout, anything else) are errors, so that a typo such as "decison"
// fails closed instead of silently allowing. A missing decision is allow,
// or rewrite when the object carries an update.
func decodeHookOutput(out []byte) (Result, error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return Result{}, errEmptyOutput
	}
	if trimmed[0] != '{' {
		return Result{}, fmt.Errorf("output is not a JSON object: %q", excerpt(trimmed, 80))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var res Result
	if err := dec.Decode(&res); err != nil {
		return Result{}, fmt.Errorf("decode result: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Result{}, errors.New("decode result: trailing data after the JSON object")
	}
	return normaliseResult(res)
}

// normaliseResult checks the decision a hook gave and fills in the implied
// one: no decision is allow, an allow that carries an update is a rewrite.
// A block carries no update (it would never be applied).
func normaliseResult(res Result) (Result, error) {
	hasUpdate := len(res.UpdatedInput) > 0 || res.UpdatedResult != nil
	switch res.Decision {
	case "", Allow:
		res.Decision = Allow
		if hasUpdate {
			res.Decision = Rewrite
		}
	case Rewrite:
		if !hasUpdate {
			res.Decision = Allow
		}
	case Block:
		res.UpdatedInput, res.UpdatedResult = nil, nil
	default:
		return Result{}, fmt.Errorf("decision %q is not one of allow, rewrite, block", res.Decision)
	}
	return res, nil
}

// excerpt shortens b for an error message.
func excerpt(b []byte, limit int) string {
	if len(b) <= limit {
		return string(b)
	}
	return string(b[:limit]) + "…"
}
