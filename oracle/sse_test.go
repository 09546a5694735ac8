package oracle

import (
	"bytes"
	"strings"
)

// sseLine is one line of a stream and the line end that followed it ("" for
// a last line cut off at EOF).
type sseLine struct {
	text, eol string
}

// sseEvent is the lines of one event and the blank line that ended it
// (blank.eol is "" when the stream ended without one).
type sseEvent struct {
	lines []sseLine
	blank *sseLine
}

// splitSSE cuts a stream into events, keeping every byte: CRLF, LF and CR
// end lines as the SSE spec says, and rendering the events gives the body
// back unchanged.
func splitSSE(body []byte) []sseEvent {
	var out []sseEvent
	var cur sseEvent
	s := string(body)
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		var l sseLine
		if i < 0 {
			l, s = sseLine{text: s}, ""
		} else {
			n := 1
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				n = 2
			}
			l, s = sseLine{text: s[:i], eol: s[i : i+n]}, s[i+n:]
		}
		if l.text == "" {
			b := l
			cur.blank = &b
			out = append(out, cur)
			cur = sseEvent{}
			continue
		}
		cur.lines = append(cur.lines, l)
	}
	if len(cur.lines) > 0 {
		out = append(out, cur)
	}
	return out
}

func renderSSE(events []sseEvent) []byte {
	var b bytes.Buffer
	for _, e := range events {
		for _, l := range e.lines {
			b.WriteString(l.text)
			b.WriteString(l.eol)
		}
		if e.blank != nil {
			b.WriteString(e.blank.text)
			b.WriteString(e.blank.eol)
		}
	}
	return b.Bytes()
}

// clone copies an event deeply enough to edit its lines.
func (e sseEvent) clone() sseEvent {
	c := sseEvent{lines: append([]sseLine(nil), e.lines...)}
	if e.blank != nil {
		b := *e.blank
		c.blank = &b
	}
	return c
}

// dataLine is the index of the event's first data line, or -1.
func (e sseEvent) dataLine() int {
	for i, l := range e.lines {
		if strings.HasPrefix(l.text, "data:") {
			return i
		}
	}
	return -1
}

// data is the value of the event's first data line (one optional space
// after the colon dropped), or "".
func (e sseEvent) data() string {
	i := e.dataLine()
	if i < 0 {
		return ""
	}
	return dataValue(e.lines[i].text)
}

func dataValue(line string) string {
	v := strings.TrimPrefix(line, "data:")
	return strings.TrimPrefix(v, " ")
}

// setData replaces the value of the event's first data line.
func (e *sseEvent) setData(v string) {
	if i := e.dataLine(); i >= 0 {
		e.lines[i].text = "data: " + v
	}
}

// lineEnd is the line end the event uses (LF when it has none).
func (e sseEvent) lineEnd() string {
	for _, l := range e.lines {
		if l.eol != "" {
			return l.eol
		}
	}
	return "\n"
}
