package providers

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Shared helpers for the sjson edits in this package. Every edit works on a
// copy: sjson allocates its result, and where it would hand back its input
// unchanged these helpers copy it, so no returned slice aliases an input
// (a frame's Data is reused by the parser; a caller must be free to keep
// the result).

func sameBacking(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:cap(a)][cap(a)-1] == &b[:cap(b)][cap(b)-1]
}

// detach returns out, copied if it shares memory with in.
func detach(out, in []byte) []byte {
	if sameBacking(out, in) {
		return bytes.Clone(out)
	}
	return out
}

func setRaw(json []byte, path string, raw []byte) ([]byte, error) {
	out, err := sjson.SetRawBytes(json, path, raw)
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", path, err)
	}
	return out, nil
}

func deletePath(json []byte, path string) ([]byte, error) {
	if !gjson.GetBytes(json, path).Exists() {
		return json, nil
	}
	out, err := sjson.DeleteBytes(json, path)
	if err != nil {
		return nil, fmt.Errorf("delete %s: %w", path, err)
	}
	return out, nil
}

func jpath(parts ...any) string {
	var b []byte
	for i, p := range parts {
		if i > 0 {
			b = append(b, '.')
		}
		switch v := p.(type) {
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case string:
			b = append(b, v...)
		}
	}
	return string(b)
}

// findChoice returns the position of the choice whose "index" is index in
// a body's choices array (the array position when the member is missing)
// and its raw bytes; pos is -1 when there is none.
func findChoice(body []byte, index int) (pos int, raw []byte) {
	top, ok := iterObject(body)
	if !ok {
		return -1, nil
	}
	var choices []byte
	for k, v, ok := top.next(); ok; k, v, ok = top.next() {
		if keyIs(k, "choices") {
			choices = v
		}
	}
	arr, ok := iterArray(choices)
	if !ok {
		return -1, nil
	}
	pos = -1
	for i := 0; ; i++ {
		v, ok := arr.next()
		if !ok {
			break
		}
		n := i
		obj, _ := iterObject(v)
		for k, iv, ok := obj.next(); ok; k, iv, ok = obj.next() {
			if keyIs(k, "index") {
				if x, ok := parseIndex(iv); ok {
					n = x
				}
			}
		}
		if n == index {
			pos, raw = i, v
		}
	}
	return pos, raw
}

// appendJSONOrNull appends s quoted, or null when s is empty.
func appendJSONOrNull(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return appendQuoted(dst, s)
}
