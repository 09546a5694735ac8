package oracle

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// params hands a mutation its choices (which key, which variant, which
// event) from the fuzzer's bytes; past their end every choice is 0.
type params struct {
	b []byte
	i int
}

func (p *params) pick(n int) int {
	if n <= 1 || p.i >= len(p.b) {
		if p.i < len(p.b) {
			p.i++
		}
		return 0
	}
	v := int(p.b[p.i]) % n
	p.i++
	return v
}

// mutant is what the mock will answer: a body and its status.
type mutant struct {
	api    apiKind
	body   []byte
	status int
}

// mutation is one class of reading difference. apply edits m and reports
// whether it changed anything (a class that does not fit the sample is
// inert and skipped).
type mutation struct {
	name  string
	apis  []apiKind // nil: every format
	apply func(m *mutant, p *params) bool
}

func (c mutation) fits(api apiKind) bool {
	if c.apis == nil {
		return true
	}
	for _, a := range c.apis {
		if a == api {
			return true
		}
	}
	return false
}

var (
	sseOnly      = []apiKind{chatSSE, responsesSSE, messagesSSE}
	chatOnly     = []apiKind{chatSSE, chatJSON}
	namedEvents  = []apiKind{responsesSSE, messagesSSE}
	asciiSpaces  = []string{" ", "\t", "\v", "\f", "  \t"}
	unicodeSpace = []string{"\u0085", "\u00a0", "\u1680", "\u2000", "\u2007", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"}
)

// classes is every mutation class, in a fixed order: the fuzzers' input
// names a class by its position, so new classes go at the end.
var classes = []mutation{
	{name: "none", apply: func(*mutant, *params) bool { return true }},
	{name: "bom-start", apply: func(m *mutant, _ *params) bool {
		m.body = append([]byte("\uFEFF"), m.body...)
		return true
	}},
	{name: "bom-line", apis: sseOnly, apply: func(m *mutant, p *params) bool {
		every := p.pick(2) == 1
		return editEvents(m, p, func(e *sseEvent) bool {
			for i := range e.lines {
				if every || strings.HasPrefix(e.lines[i].text, "data:") {
					e.lines[i].text = "\uFEFF" + e.lines[i].text
				}
			}
			return true
		})
	}},
	{name: "lead-ascii-ws", apply: func(m *mutant, p *params) bool { return prefixData(m, p, asciiSpaces[p.pick(len(asciiSpaces))]) }},
	{name: "lead-unicode-ws", apply: func(m *mutant, p *params) bool {
		return prefixData(m, p, unicodeSpace[p.pick(len(unicodeSpace))])
	}},
	{name: "trail-ws", apply: func(m *mutant, p *params) bool {
		all := append(append([]string{}, asciiSpaces...), unicodeSpace...)
		ws := all[p.pick(len(all))]
		if !m.api.streamed() {
			m.body = append(m.body, ws...)
			return true
		}
		return editEvents(m, p, func(e *sseEvent) bool {
			if i := e.dataLine(); i >= 0 {
				e.lines[i].text += ws
				return true
			}
			return false
		})
	}},
	{name: "key-escape", apply: func(m *mutant, p *params) bool { return respell(m, p, escapeLetter) }},
	{name: "key-case", apply: func(m *mutant, p *params) bool { return respell(m, p, caseVariant) }},
	{name: "key-fold", apply: func(m *mutant, p *params) bool { return respell(m, p, unicodeFold) }},
	{name: "dup-key-decoy-first", apply: func(m *mutant, p *params) bool { return duplicate(m, p, true) }},
	{name: "dup-key-decoy-last", apply: func(m *mutant, p *params) bool { return duplicate(m, p, false) }},
	{name: "sse-unknown-field", apis: sseOnly, apply: func(m *mutant, p *params) bool {
		v := p.pick(4)
		return editEvents(m, p, func(e *sseEvent) bool {
			i := e.dataLine()
			if i < 0 {
				return false
			}
			switch v {
			case 0:
				e.lines = append(e.lines[:i], append([]sseLine{{text: "x-oracle: 1", eol: e.lineEnd()}}, e.lines[i:]...)...)
			case 1:
				e.lines[i].text = "Data:" + strings.TrimPrefix(e.lines[i].text, "data:")
			case 2:
				e.lines[i].text = "data :" + strings.TrimPrefix(e.lines[i].text, "data:")
			case 3:
				e.lines[i].text = "DATA:" + strings.TrimPrefix(e.lines[i].text, "data:")
			}
			return true
		})
	}},
	{name: "json-unknown-member", apply: func(m *mutant, p *params) bool {
		return editData(m, p, func(d string) (string, bool) {
			if !strings.HasPrefix(strings.TrimSpace(d), "{") {
				return d, false
			}
			i := strings.Index(d, "{")
			return d[:i+1] + `"x_oracle":{"note":"unknown member"},` + d[i+1:], true
		})
	}},
	{name: "legacy-function-call", apis: chatOnly, apply: func(m *mutant, p *params) bool {
		keep := p.pick(2) == 1
		return editChoices(m, p, func(d, part string) (string, bool) {
			calls := gjson.Get(d, part+".tool_calls")
			if !calls.IsArray() || len(calls.Array()) == 0 {
				return d, false
			}
			first := calls.Array()[0]
			fc := `{}`
			if n := first.Get("function.name"); n.Exists() {
				fc, _ = sjson.Set(fc, "name", n.String())
			}
			if a := first.Get("function.arguments"); a.Exists() {
				fc, _ = sjson.Set(fc, "arguments", a.String())
			}
			d, _ = sjson.SetRaw(d, part+".function_call", fc)
			if !keep {
				d, _ = sjson.Delete(d, part+".tool_calls")
			}
			return d, true
		})
	}},
	{name: "chunk-message-member", apis: []apiKind{chatSSE}, apply: func(m *mutant, p *params) bool {
		keep := p.pick(2) == 1
		return editChoices(m, p, func(d, part string) (string, bool) {
			calls := gjson.Get(d, part+".tool_calls")
			if !calls.IsArray() {
				return d, false
			}
			base := strings.TrimSuffix(part, ".delta")
			d, _ = sjson.SetRaw(d, base+".message", `{"role":"assistant","content":null,"tool_calls":`+calls.Raw+`}`)
			if !keep {
				d, _ = sjson.Delete(d, part+".tool_calls")
			}
			return d, true
		})
	}},
	{name: "custom-tool", apis: chatOnly, apply: func(m *mutant, p *params) bool {
		beside := p.pick(2) == 1
		return editChoices(m, p, func(d, part string) (string, bool) {
			calls := gjson.Get(d, part+".tool_calls").Array()
			if len(calls) == 0 {
				return d, false
			}
			for j, c := range calls {
				path := part + ".tool_calls." + strconv.Itoa(j)
				custom := `{}`
				if n := c.Get("function.name"); n.Exists() {
					custom, _ = sjson.Set(custom, "name", n.String())
				}
				if a := c.Get("function.arguments"); a.Exists() {
					custom, _ = sjson.Set(custom, "input", a.String())
				}
				d, _ = sjson.SetRaw(d, path+".custom", custom)
				if beside {
					if c.Get("function.name").Exists() {
						d, _ = sjson.Set(d, path+".function.name", "ls")
					}
					if c.Get("function.arguments").Exists() {
						d, _ = sjson.Set(d, path+".function.arguments", "{}")
					}
				} else {
					d, _ = sjson.Delete(d, path+".function")
					if c.Get("type").Exists() {
						d, _ = sjson.Set(d, path+".type", "custom")
					}
				}
			}
			return d, true
		})
	}},
	{name: "message-start-content", apis: []apiKind{messagesSSE}, apply: messageStartContent},
	{name: "snapshot-after-terminal", apis: []apiKind{responsesSSE}, apply: snapshotAfterTerminal},
	{name: "event-after-terminal", apis: sseOnly, apply: func(m *mutant, p *params) bool {
		events := splitSSE(m.body)
		var extra []sseEvent
		for _, e := range events {
			if m.api.isToolEvent(e.data()) {
				c := e.clone()
				if c.blank == nil {
					c.blank = &sseLine{eol: c.lineEnd()}
				}
				extra = append(extra, c)
			}
		}
		if len(extra) == 0 {
			return false
		}
		if n := len(events); n > 0 && events[n-1].blank == nil {
			events[n-1].blank = &sseLine{eol: events[n-1].lineEnd()}
		}
		m.body = renderSSE(append(events, extra...))
		return true
	}},
	{name: "unterminated-tail", apis: sseOnly, apply: func(m *mutant, p *params) bool {
		events := splitSSE(m.body)
		if len(events) == 0 {
			return false
		}
		if p.pick(2) == 0 {
			events[len(events)-1].blank = nil
		} else {
			for _, e := range events {
				if m.api.isToolEvent(e.data()) {
					c := e.clone()
					c.blank = nil
					if last := &events[len(events)-1]; last.blank == nil {
						last.blank = &sseLine{eol: last.lineEnd()}
					}
					events = append(events, c)
					break
				}
			}
		}
		m.body = renderSSE(events)
		return true
	}},
	{name: "split-data", apis: sseOnly, apply: func(m *mutant, p *params) bool {
		at := p.pick(4)
		return editEvents(m, p, func(e *sseEvent) bool {
			i := e.dataLine()
			if i < 0 {
				return false
			}
			v := dataValue(e.lines[i].text)
			keys := jsonKeys(v)
			cut := strings.Index(v, "{") + 1
			if at > 0 && len(keys) > 0 {
				cut = keys[(at*7)%len(keys)].start
			}
			if cut <= 0 || cut >= len(v) {
				return false
			}
			second := sseLine{text: "data: " + v[cut:], eol: e.lines[i].eol}
			e.lines[i] = sseLine{text: "data: " + v[:cut], eol: e.lineEnd()}
			e.lines = append(e.lines[:i+1], append([]sseLine{second}, e.lines[i+1:]...)...)
			return true
		})
	}},
	{name: "extra-data-line", apis: sseOnly, apply: extraDataLine},
	{name: "extra-data-line+key-escape", apis: sseOnly, apply: func(m *mutant, p *params) bool {
		return respell(m, &params{}, escapeLetter) && extraDataLine(m, p)
	}},
	{name: "bare-cr", apis: sseOnly, apply: func(m *mutant, p *params) bool {
		if p.pick(2) == 1 {
			events := splitSSE(m.body)
			for i := range events {
				crEvent(&events[i])
			}
			m.body = renderSSE(events)
			return true
		}
		return editEvents(m, p, func(e *sseEvent) bool { crEvent(e); return true })
	}},
	{name: "number-form", apply: func(m *mutant, p *params) bool {
		form := p.pick(4)
		return editData(m, p, func(d string) (string, bool) {
			keys := jsonKeys(d)
			changed := false
			for k := len(keys) - 1; k >= 0; k-- {
				key := keys[k]
				switch key.raw {
				case "index", "sequence_number", "output_index", "content_index":
				default:
					continue
				}
				n, err := strconv.ParseInt(d[key.valueStart:key.valueEnd], 10, 64)
				if err != nil {
					continue
				}
				var s string
				switch form {
				case 0:
					s = fmt.Sprintf("%d.0", n)
				case 1:
					s = fmt.Sprintf("%de0", n)
				case 2:
					s = fmt.Sprintf("%d", n+1<<53)
				case 3:
					s = fmt.Sprintf("%d.000e0", n)
				}
				d = d[:key.valueStart] + s + d[key.valueEnd:]
				changed = true
			}
			return d, changed
		})
	}},
	{name: "event-name", apis: namedEvents, apply: func(m *mutant, p *params) bool {
		v := p.pick(4)
		return editEvents(m, p, func(e *sseEvent) bool {
			for i, l := range e.lines {
				if !strings.HasPrefix(l.text, "event:") {
					continue
				}
				name := strings.TrimSpace(strings.TrimPrefix(l.text, "event:"))
				switch v {
				case 0:
					e.lines[i].text = "event: ping"
				case 1:
					e.lines = append(e.lines[:i], e.lines[i+1:]...)
				case 2:
					if m.api == messagesSSE {
						e.lines[i].text = "event: message_delta"
					} else {
						e.lines[i].text = "event: response.output_text.delta"
					}
				case 3:
					e.lines[i].text = "event: " + strings.ToUpper(name)
				}
				return true
			}
			return false
		})
	}},
	{name: "status-1xx-3xx", apply: func(m *mutant, p *params) bool {
		codes := []int{300, 301, 302, 303, 307, 308, 399, 203, 206}
		m.status = codes[p.pick(len(codes))]
		return true
	}},
}

// editEvents applies fn to the events that carry a tool call: all of them,
// or one, as p says. For a plain body it edits nothing.
func editEvents(m *mutant, p *params, fn func(e *sseEvent) bool) bool {
	if !m.api.streamed() {
		return false
	}
	events := splitSSE(m.body)
	var targets []int
	for i, e := range events {
		if m.api.isToolEvent(e.data()) {
			targets = append(targets, i)
		}
	}
	if len(targets) == 0 {
		return false
	}
	if one := p.pick(len(targets) + 1); one > 0 {
		targets = targets[one-1 : one]
	}
	changed := false
	for _, i := range targets {
		if fn(&events[i]) {
			changed = true
		}
	}
	if changed {
		m.body = renderSSE(events)
	}
	return changed
}

// editData applies fn to the JSON of every tool event (or of one), or to a
// plain body.
func editData(m *mutant, p *params, fn func(data string) (string, bool)) bool {
	if !m.api.streamed() {
		d, ok := fn(string(m.body))
		if ok {
			m.body = []byte(d)
		}
		return ok
	}
	return editEvents(m, p, func(e *sseEvent) bool {
		d, ok := fn(e.data())
		if ok {
			e.setData(d)
		}
		return ok
	})
}

// editChoices applies fn to each choice's delta (streams) or message
// (plain bodies), fn getting the data and the member's path.
func editChoices(m *mutant, p *params, fn func(d, part string) (string, bool)) bool {
	member := "delta"
	if !m.api.streamed() {
		member = "message"
	}
	return editData(m, p, func(d string) (string, bool) {
		changed := false
		for i := range gjson.Get(d, "choices").Array() {
			var ok bool
			d, ok = fn(d, "choices."+strconv.Itoa(i)+"."+member)
			changed = changed || ok
		}
		return d, changed
	})
}

func prefixData(m *mutant, p *params, prefix string) bool {
	if !m.api.streamed() {
		m.body = append([]byte(prefix), m.body...)
		return true
	}
	return editEvents(m, p, func(e *sseEvent) bool {
		if i := e.dataLine(); i >= 0 {
			e.lines[i].text = prefix + e.lines[i].text
			return true
		}
		return false
	})
}

// respell rewrites one of the format's member keys, everywhere in the tool
// events (or one) it occurs, with spell; the key is the first, counting
// from p's choice, that spell can rewrite and that occurs.
func respell(m *mutant, p *params, spell func(key string, v int) (string, bool)) bool {
	keys := m.api.memberKeys()
	start, v := p.pick(len(keys)), p.pick(256)
	for n := 0; n < len(keys); n++ {
		key := keys[(start+n)%len(keys)]
		to, ok := spell(key, v)
		if !ok {
			continue
		}
		save := m.body
		q := *p
		if editData(m, &q, func(d string) (string, bool) { return replaceKey(d, key, to) }) {
			*p = q
			return true
		}
		m.body = save
	}
	return false
}

// replaceKey rewrites every key spelled key (as written) in d.
func replaceKey(d, key, to string) (string, bool) {
	ks := jsonKeys(d)
	changed := false
	for i := len(ks) - 1; i >= 0; i-- {
		if ks[i].raw == key {
			d = d[:ks[i].start+1] + to + d[ks[i].end-1:]
			changed = true
		}
	}
	return d, changed
}

func escapeLetter(key string, v int) (string, bool) {
	i := v % len(key)
	hex := "%04x"
	if v&1 == 1 {
		hex = "%04X"
	}
	return key[:i] + `\u` + fmt.Sprintf(hex, key[i]) + key[i+1:], true
}

func caseVariant(key string, v int) (string, bool) {
	switch v % 3 {
	case 0:
		return strings.ToUpper(key[:1]) + key[1:], true
	case 1:
		return strings.ToUpper(key), true
	}
	i := (v / 3) % len(key)
	if key[i] < 'a' || key[i] > 'z' {
		i = 0
	}
	return key[:i] + strings.ToUpper(key[i:i+1]) + key[i+1:], true
}

// unicodeFold swaps an s for ſ (U+017F) or a k for the Kelvin sign
// (U+212A): encoding/json's simple folding matches both.
func unicodeFold(key string, v int) (string, bool) {
	var at []int
	for i := 0; i < len(key); i++ {
		if key[i] == 's' || key[i] == 'k' {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return "", false
	}
	i := at[v%len(at)]
	r := "\u017f"
	if key[i] == 'k' {
		r = "\u212a"
	}
	out := key[:i] + r + key[i+1:]
	if !utf8.ValidString(out) {
		return "", false
	}
	return out, true
}

// duplicate puts a decoy member beside one of the format's members, before
// it (a first-wins reader takes the decoy, a last-wins one the original) or
// after it.
func duplicate(m *mutant, p *params, decoyFirst bool) bool {
	keys := m.api.memberKeys()
	start := p.pick(len(keys))
	for n := 0; n < len(keys); n++ {
		key := keys[(start+n)%len(keys)]
		q := *p
		if editData(m, &q, func(d string) (string, bool) {
			ks := jsonKeys(d)
			changed := false
			for i := len(ks) - 1; i >= 0; i-- {
				k := ks[i]
				if k.raw != key || k.valueEnd <= k.valueStart {
					continue
				}
				member := `"` + key + `":` + decoy(m.api, key, d[k.valueStart:k.valueEnd])
				if decoyFirst {
					d = d[:k.start] + member + "," + d[k.start:]
				} else {
					d = d[:k.valueEnd] + "," + member + d[k.valueEnd:]
				}
				changed = true
			}
			return d, changed
		}) {
			*p = q
			return true
		}
	}
	return false
}

// decoy is a value of the same JSON type that carries no call.
func decoy(api apiKind, key, value string) string {
	switch value[0] {
	case '"':
		if key == "type" {
			if api.messages() {
				return `"text_delta"`
			}
			return `"message"`
		}
		return `""`
	case '[':
		return `[]`
	case '{':
		if key == "content_block" {
			return `{"type":"text","text":""}`
		}
		if key == "delta" && api.messages() {
			return `{"type":"text_delta","text":""}`
		}
		return `{}`
	case 't', 'f', 'n':
		return `null`
	}
	return `7`
}

func extraDataLine(m *mutant, p *params) bool {
	extra := []string{"data: {}", `data: {"choices":[]}`, "data:", "data: [DONE]"}[p.pick(4)]
	return editEvents(m, p, func(e *sseEvent) bool {
		i := e.dataLine()
		if i < 0 {
			return false
		}
		line := sseLine{text: extra, eol: e.lines[i].eol}
		if line.eol == "" {
			line.eol = e.lineEnd()
			e.lines[i].eol = line.eol
		}
		e.lines = append(e.lines[:i+1], append([]sseLine{line}, e.lines[i+1:]...)...)
		return true
	})
}

func crEvent(e *sseEvent) {
	for i := range e.lines {
		if e.lines[i].eol != "" {
			e.lines[i].eol = "\r"
		}
	}
	if e.blank != nil && e.blank.eol != "" {
		e.blank.eol = "\r"
	}
}

// messageStartContent copies every tool_use block, input and all, into
// message_start's message.content (an SDK's accumulator starts from it),
// and with p's second variant drops the blocks' own events.
func messageStartContent(m *mutant, p *params) bool {
	drop := p.pick(2) == 1
	events := splitSSE(m.body)
	start := -1
	blocks := map[int64]string{}
	inputs := map[int64]string{}
	var order []int64
	var keep []sseEvent
	for i, e := range events {
		d := e.data()
		t := gjson.Get(d, "type").String()
		idx := gjson.Get(d, "index").Int()
		switch {
		case t == "message_start":
			start = len(keep)
		case t == "content_block_start" && gjson.Get(d, "content_block.type").String() == "tool_use":
			blocks[idx] = gjson.Get(d, "content_block").Raw
			order = append(order, idx)
			if drop {
				continue
			}
		case t == "content_block_delta" && gjson.Get(d, "delta.type").String() == "input_json_delta":
			inputs[idx] += gjson.Get(d, "delta.partial_json").String()
			if drop {
				continue
			}
		case t == "content_block_stop" && blocks[idx] != "" && drop:
			continue
		}
		keep = append(keep, events[i])
	}
	if start < 0 || len(order) == 0 {
		return false
	}
	content := "["
	for i, idx := range order {
		b := blocks[idx]
		in := inputs[idx]
		if !gjson.Valid(in) {
			in = `{}`
		}
		b, _ = sjson.SetRaw(b, "input", in)
		if i > 0 {
			content += ","
		}
		content += b
	}
	content += "]"
	e := keep[start].clone()
	d, _ := sjson.SetRaw(e.data(), "message.content", content)
	e.setData(d)
	keep[start] = e
	m.body = renderSSE(keep)
	return true
}

// snapshotAfterTerminal repeats response.completed's snapshot, output and
// all, as a lifecycle event after it (a stream helper keeps the last
// snapshot it sees).
func snapshotAfterTerminal(m *mutant, p *params) bool {
	name := []string{"response.in_progress", "response.queued", "response.created", "response.completed"}[p.pick(4)]
	events := splitSSE(m.body)
	for i, e := range events {
		d := e.data()
		if gjson.Get(d, "type").String() != "response.completed" {
			continue
		}
		c := e.clone()
		d, _ = sjson.Set(d, "type", name)
		d, _ = sjson.Set(d, "sequence_number", gjson.Get(d, "sequence_number").Int()+1)
		c.setData(d)
		for j, l := range c.lines {
			if strings.HasPrefix(l.text, "event:") {
				c.lines[j].text = "event: " + name
			}
		}
		if c.blank == nil {
			c.blank = &sseLine{eol: c.lineEnd()}
		}
		if e.blank == nil {
			events[i].blank = &sseLine{eol: e.lineEnd()}
		}
		out := append(append(append([]sseEvent{}, events[:i+1]...), c), events[i+1:]...)
		m.body = renderSSE(out)
		return true
	}
	return false
}
