package oracle

import (
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// geminiMutation is one class of reading difference in Gemini answers.
// forms nil fits every form.
type geminiMutation struct {
	name  string
	forms []geminiForm
	apply func(m *geminiMutant, p *params) bool
}

func (c geminiMutation) fits(f geminiForm) bool {
	if c.forms == nil {
		return true
	}
	for _, g := range c.forms {
		if g == f {
			return true
		}
	}
	return false
}

var (
	geminiStreams   = []geminiForm{geminiSSE, geminiArray}
	geminiSSEOnly   = []geminiForm{geminiSSE}
	geminiCallKeys  = []string{"FunctionCall", "function_call", "functioncall", "FUNCTIONCALL", "functionCalL", `\u0066unctionCall`, "function_Call", "functionCall "}
	geminiPathKeys  = []string{"candidates", "content", "parts", "name", "args"}
	geminiErrorJSON = `{"code":500,"message":"oracle error","status":"INTERNAL"}`
)

// geminiClasses is every Gemini mutation class, in a fixed order: the fuzz
// input names a class by its position, so new classes go at the end.
var geminiClasses = []geminiMutation{
	{name: "none", apply: func(*geminiMutant, *params) bool { return true }},
	{name: "call-key-spelling", apply: func(m *geminiMutant, p *params) bool {
		to := geminiCallKeys[p.pick(len(geminiCallKeys))]
		return m.editCallFrames(p, func(d string) (string, bool) { return replaceKey(d, "functionCall", to) })
	}},
	{name: "path-key-spelling", apply: func(m *geminiMutant, p *params) bool {
		key := geminiPathKeys[p.pick(len(geminiPathKeys))]
		var to string
		switch p.pick(4) {
		case 0:
			to = strings.ToUpper(key[:1]) + key[1:]
		case 1:
			to = strings.ToUpper(key)
		case 2:
			to, _ = escapeLetter(key, 1)
		default:
			to = strings.Replace(key, "s", "\u017f", 1)
		}
		if to == key {
			return false
		}
		return m.editCallFrames(p, func(d string) (string, bool) { return replaceKey(d, key, to) })
	}},
	{name: "dup-call-key", apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(5)
		return m.editCallFrames(p, func(d string) (string, bool) {
			return editCallMembers(d, func(key, val string) string {
				switch v {
				case 0: // two functionCall members, a decoy first
					return `"` + key + `":{"name":"ls","args":{}},"` + key + `":` + val
				case 1: // the decoy last
					return `"` + key + `":` + val + `,"` + key + `":{"name":"ls","args":{}}`
				case 2: // the same call twice
					return `"` + key + `":` + val + `,"` + key + `":` + val
				case 3: // a variant spelling beside the exact one
					return `"` + key + `":` + val + `,"function_call":` + val
				default: // a variant spelling first
					return `"FunctionCall":` + val + `,"` + key + `":{"name":"ls","args":{}}`
				}
			})
		})
	}},
	{name: "dup-call-name", apply: func(m *geminiMutant, p *params) bool {
		first := p.pick(2) == 0
		return m.editCallFrames(p, func(d string) (string, bool) {
			ks := jsonKeys(d)
			changed := false
			for i := len(ks) - 1; i >= 0; i-- {
				k := ks[i]
				if k.raw != "name" || !inCall(ks, i) {
					continue
				}
				if first {
					d = d[:k.start] + `"name":"ls",` + d[k.start:]
				} else {
					d = d[:k.valueEnd] + `,"name":"ls"` + d[k.valueEnd:]
				}
				changed = true
			}
			return d, changed
		})
	}},
	{name: "dup-path-key", apply: func(m *geminiMutant, p *params) bool {
		key := []string{"candidates", "content", "parts"}[p.pick(3)]
		first := p.pick(2) == 0
		return m.editCallFrames(p, func(d string) (string, bool) {
			ks := jsonKeys(d)
			for i := len(ks) - 1; i >= 0; i-- {
				k := ks[i]
				if k.raw != key {
					continue
				}
				decoy := `"` + key + `":[]`
				if key == "content" {
					decoy = `"content":{"role":"model","parts":[{"text":"ok"}]}`
				}
				if first {
					d = d[:k.start] + decoy + "," + d[k.start:]
				} else {
					d = d[:k.valueEnd] + "," + decoy + d[k.valueEnd:]
				}
				return d, true
			}
			return d, false
		})
	}},
	{name: "multi-candidates", apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(3)
		return m.editCallFrames(p, func(d string) (string, bool) {
			c0 := gjson.Get(d, "candidates.0")
			if !c0.Exists() {
				return d, false
			}
			text := `{"content":{"role":"model","parts":[{"text":"ok"}]},"index":0}`
			second, _ := sjson.Set(c0.Raw, "index", 1)
			switch v {
			case 0: // the call copied into a second candidate
				d, _ = sjson.SetRaw(d, "candidates.-1", second)
			case 1: // a text candidate first, the call second
				first, _ := sjson.Set(c0.Raw, "index", 1)
				d, _ = sjson.SetRaw(d, "candidates", "["+text+","+first+"]")
			default: // the call as candidate 0 twice, same index
				d, _ = sjson.SetRaw(d, "candidates.-1", c0.Raw)
			}
			return d, true
		})
	}},
	{name: "call-null-then-real", apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(3)
		return m.editCallFrames(p, func(d string) (string, bool) {
			return editCallMembers(d, func(key, val string) string {
				switch v {
				case 0:
					return `"` + key + `":null,"` + key + `":` + val
				case 1:
					return `"` + key + `":null,"function_call":` + val
				default:
					return `"` + key + `":` + val + `,"` + key + `":null`
				}
			})
		})
	}},
	{name: "args-not-object", apply: func(m *geminiMutant, p *params) bool {
		to := []string{`"{\"a\":1}"`, `[{"a":1}]`, `1`, `null`, `true`, `""`}[p.pick(6)]
		return m.editCallFrames(p, func(d string) (string, bool) {
			return editCallField(d, "args", to)
		})
	}},
	{name: "partial-args", apply: func(m *geminiMutant, p *params) bool {
		extra := []string{`"willContinue":true`, `"partialArgs":[{"jsonPath":"$.a","numberValue":1}],"willContinue":true`, `"willContinue":"true"`, `"willContinue":1`, `"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}]`, `"will_continue":true`}[p.pick(6)]
		return m.editCallFrames(p, func(d string) (string, bool) {
			return editCallMembers(d, func(key, val string) string {
				i := strings.Index(val, "{")
				return `"` + key + `":` + val[:i+1] + extra + "," + val[i+1:]
			})
		})
	}},
	{name: "sse-framing", forms: geminiSSEOnly, apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(11)
		target := p.pick(2) // 0: the first call block, 1: every block
		m.post = append(m.post, func(b []byte) []byte { return reframe(b, v, target == 1) })
		return true
	}},
	{name: "error-beside-candidates", apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(3)
		return m.editCallFrames(p, func(d string) (string, bool) {
			switch v {
			case 0:
				d, _ = sjson.SetRaw(d, "error", geminiErrorJSON)
			case 1:
				d = `{"error":` + geminiErrorJSON + `,` + strings.TrimPrefix(strings.TrimSpace(d), "{")
			default:
				d, _ = sjson.SetRaw(d, "error", `null`)
			}
			return d, true
		})
	}},
	{name: "frames-after-finish", forms: geminiStreams, apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(3)
		calls := m.callFrames()
		if len(calls) == 0 {
			return false
		}
		c := m.frames[calls[0]]
		switch v {
		case 0: // the call again after the finish frame
			m.frames = append(m.frames, c)
		case 1: // a finish on the call's frame, then the call again with none
			f, _ := sjson.Set(c, "candidates.0.finishReason", "STOP")
			m.frames[calls[0]] = f
			m.frames = append(m.frames, c)
		default: // the call after the finish, with a finish of its own
			f, _ := sjson.Set(c, "candidates.0.finishReason", "STOP")
			m.frames = append(m.frames, f)
		}
		return true
	}},
	{name: "huge-args", apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(4)
		return m.editCallFrames(p, func(d string) (string, bool) {
			var args string
			switch v {
			case 0:
				args = `{"a":"` + strings.Repeat("x", 300<<10) + `"}`
			case 1:
				args = `{"a":"` + strings.Repeat("y", 2<<20) + `"}`
			case 2: // past hookgate's limit on a call's arguments
				args = `{"a":"` + strings.Repeat("z", 5<<20) + `"}`
			default:
				args = strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
			}
			return editCallField(d, "args", args)
		})
	}},
	{name: "invalid-utf8", apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(4)
		return m.editCallFrames(p, func(d string) (string, bool) {
			switch v {
			case 0:
				return editCallField(d, "name", "\"a\xffdd\"")
			case 1:
				return editCallField(d, "args", "{\"a\":\"\xc3\"}")
			case 2:
				return replaceKey(d, "functionCall", "functionCall\xff")
			default:
				return "\xff" + d, true
			}
		})
	}},
	{name: "bom-or-space", apply: func(m *geminiMutant, p *params) bool {
		lead := []string{"\uFEFF", " ", "\t", "\u00a0"}[p.pick(4)]
		return m.editCallFrames(p, func(d string) (string, bool) { return lead + d, true })
	}},
	{name: "status", apply: func(m *geminiMutant, p *params) bool {
		m.status = []int{201, 203, 206, 299, 300, 302, 304, 400, 500}[p.pick(9)]
		return true
	}},
	{name: "content-type", apply: func(m *geminiMutant, p *params) bool {
		m.contentType = []string{"application/json", "application/json; charset=UTF-8", "text/plain", "TEXT/EVENT-STREAM", "text/event-stream; charset=utf-8", "application/x-ndjson"}[p.pick(6)]
		return true
	}},
	{name: "array-framing", forms: []geminiForm{geminiArray}, apply: func(m *geminiMutant, p *params) bool {
		v := p.pick(7)
		m.post = append(m.post, func(b []byte) []byte {
			s := string(b)
			inner := strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
			switch v {
			case 0: // a byte-order mark first
				return []byte("\uFEFF" + s)
			case 1: // whitespace around the array
				return []byte("\r\n " + s + "\r\n")
			case 2: // a trailing comma
				return []byte("[" + inner + ",]")
			case 3: // no closing bracket
				return []byte("[" + inner)
			case 4: // the frames again as a second array
				return []byte(s + s)
			case 5: // the array nested in an array
				return []byte("[" + s + "]")
			default: // a null element first
				return []byte("[null," + inner + "]")
			}
		})
		return true
	}},
}

// inCall reports whether key i of ks sits directly in a functionCall
// object (any spelling).
func inCall(ks []jsonKey, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if ks[j].depth == ks[i].depth-1 && ks[j].valueStart < ks[i].start && ks[i].start < ks[j].valueEnd {
			return foldKey(ks[j].raw) == "functioncall"
		}
	}
	return false
}

// editCallMembers rewrites each functionCall member of d (any spelling,
// as written) with fn(key, value), which returns the member text.
func editCallMembers(d string, fn func(key, val string) string) (string, bool) {
	ks := jsonKeys(d)
	changed := false
	for i := len(ks) - 1; i >= 0; i-- {
		k := ks[i]
		if foldKey(k.raw) != "functioncall" || k.valueEnd <= k.valueStart || d[k.valueStart] != '{' {
			continue
		}
		d = d[:k.start] + fn(k.raw, d[k.valueStart:k.valueEnd]) + d[k.valueEnd:]
		changed = true
	}
	return d, changed
}

// editCallField sets field (name or args) of every call in d to raw.
func editCallField(d, field, raw string) (string, bool) {
	ks := jsonKeys(d)
	changed := false
	for i := len(ks) - 1; i >= 0; i-- {
		k := ks[i]
		if k.raw != field || !inCall(ks, i) || k.valueEnd <= k.valueStart {
			continue
		}
		d = d[:k.valueStart] + raw + d[k.valueEnd:]
		changed = true
	}
	return d, changed
}

// reframe changes the SSE framing of the first block with a call, or of
// every block: v picks the change.
func reframe(b []byte, v int, every bool) []byte {
	events := splitSSE(b)
	done := false
	for i := range events {
		e := &events[i]
		if !every && (done || !strings.Contains(strings.ToLower(e.data()), "functioncall")) {
			continue
		}
		done = true
		di := e.dataLine()
		if di < 0 {
			continue
		}
		eol := e.lineEnd()
		switch v {
		case 0: // an event line first
			e.lines = append([]sseLine{{text: "event: message", eol: eol}}, e.lines...)
		case 1: // a comment line first
			e.lines = append([]sseLine{{text: ": ping", eol: eol}}, e.lines...)
		case 2: // the JSON over two data lines
			val := dataValue(e.lines[di].text)
			cut := strings.Index(val, "{") + 1
			if cut <= 0 || cut >= len(val) {
				continue
			}
			e.lines = append(e.lines[:di], append([]sseLine{{text: "data: " + val[:cut], eol: eol}, {text: "data: " + val[cut:], eol: e.lines[di].eol}}, e.lines[di+1:]...)...)
		case 3: // LF line ends in this block, CRLF in the others
			for j := range e.lines {
				e.lines[j].eol = "\n"
			}
			if e.blank != nil {
				e.blank.eol = "\n"
			}
		case 4: // the block's blank line dropped: it runs into the next
			if e.blank != nil {
				e.blank = nil
			}
		case 5: // a comment block before it
			e.lines = append([]sseLine{{text: ": keep-alive", eol: eol}, {text: "", eol: eol}}, e.lines...)
		case 6: // no space after data:
			e.lines[di].text = "data:" + dataValue(e.lines[di].text)
		case 7: // bare CR line ends
			crEvent(e)
		case 8: // an id and a retry line after the data
			e.lines = append(e.lines[:di+1], append([]sseLine{{text: "id: 1", eol: eol}, {text: "retry: 10", eol: eol}}, e.lines[di+1:]...)...)
		case 9: // a second data line of its own payload after the first
			e.lines = append(e.lines[:di+1], append([]sseLine{{text: e.lines[di].text, eol: eol}}, e.lines[di+1:]...)...)
		}
	}
	out := renderSSE(events)
	if v == 10 {
		// the stream's last terminator dropped
		out = []byte(strings.TrimRight(string(out), "\r\n"))
	}
	return out
}
