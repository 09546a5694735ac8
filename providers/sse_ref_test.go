package providers

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"unicode"
)

// refFrame is a parsed event with owned copies of its parts, comparable with
// reflect.DeepEqual. Absent parts are nil strings via the has* flags.
type refFrame struct {
	Raw       string
	Event     string
	HasEvent  bool
	Data      string
	ID        string
	HasID     bool
	DataLines int
	Comment   bool
	Done      bool
	Seq       uint64
	Offset    int64
}

func (f refFrame) String() string {
	return fmt.Sprintf("#%d@%d raw=%q event=%q(%v) data=%q lines=%d id=%q(%v) comment=%v done=%v",
		f.Seq, f.Offset, f.Raw, f.Event, f.HasEvent, f.Data, f.DataLines, f.ID, f.HasID, f.Comment, f.Done)
}

func ownFrame(f *SSEFrame) refFrame {
	return refFrame{
		Raw: string(f.Raw), Event: string(f.Event), HasEvent: f.Event != nil,
		Data: string(f.Data), ID: string(f.ID), HasID: f.ID != nil,
		DataLines: f.DataLines, Comment: f.Comment, Done: f.Done, Seq: f.Seq, Offset: f.Offset,
	}
}

// refResult is what a whole stream parses to.
type refResult struct {
	Frames   []refFrame
	Trailing string
	TooLarge bool // parsing stopped with ErrEventTooLarge after Frames
	Refused  bool // a relay parser stopped with ErrSSEAmbiguous after Frames
}

// refParseSSE is the obviously-correct reference: it sees the whole input at
// once, cuts it into lines by walking bytes, and groups lines into events at
// blank lines, straight from the SSE rules. It shares no code with SSEParser.
func refParseSSE(in []byte, max int) refResult {
	var res refResult
	type line struct {
		text string
		end  int // offset just past the line ending
	}
	var lines []line
	i := 0
	for i < len(in) {
		j := i
		for j < len(in) && in[j] != '\r' && in[j] != '\n' {
			j++
		}
		if j == len(in) {
			break // unterminated tail
		}
		term := 1
		if in[j] == '\r' && j+1 < len(in) && in[j+1] == '\n' {
			term = 2
		}
		lines = append(lines, line{text: string(in[i:j]), end: j + term})
		i = j + term
	}
	start := 0
	var cur refFrame
	var data []string
	comments, fields := 0, 0
	for _, l := range lines {
		if l.text != "" {
			if strings.HasPrefix(l.text, ":") {
				comments++
				continue
			}
			fields++
			name, value, found := strings.Cut(l.text, ":")
			if found {
				value = strings.TrimPrefix(value, " ")
			}
			switch name {
			case "data":
				data = append(data, value)
			case "event":
				cur.Event, cur.HasEvent = value, true
			case "id":
				cur.ID, cur.HasID = value, true
			}
			continue
		}
		cur.Raw = string(in[start:l.end])
		if len(cur.Raw) > max {
			res.TooLarge = true
			return res
		}
		cur.DataLines = len(data)
		cur.Data = strings.Join(data, "\n")
		cur.Comment = comments > 0 && fields == 0
		cur.Done = len(data) > 0 && cur.Data == "[DONE]"
		cur.Seq = uint64(len(res.Frames))
		cur.Offset = int64(start)
		res.Frames = append(res.Frames, cur)
		cur, data, comments, fields = refFrame{}, nil, 0, 0
		start = l.end
	}
	res.Trailing = string(in[start:])
	if len(res.Trailing) > max {
		res.TooLarge = true
	}
	return res
}

// refRelaySSE is the reference for a relay parser, written from its rules
// (sse_readings.go) and sharing no code with it: a byte-order mark at the
// start is skipped; lines end in LF or CRLF, and any other CR refuses; an
// event with a second data line, a data value edged with white space other
// than space and tab, or a line of an unknown field that reads as a known
// one once BOMs and white space are trimmed from its start, refuses; other
// lines of unknown fields are left out of Raw. The frames before the
// refused (or oversized) event are the result.
func refRelaySSE(in []byte, max int) refResult {
	var res refResult
	known := map[string]bool{"data": true, "event": true, "id": true, "retry": true}
	s := string(in)
	pos := 0
	if strings.HasPrefix(s, "\uFEFF") {
		pos = len("\uFEFF")
	}
	start := 0
	var cur refFrame
	var raw strings.Builder
	var data []string
	comments, fields := 0, 0
	for {
		j := strings.IndexAny(s[pos:], "\r\n")
		if j < 0 {
			break
		}
		j += pos
		text := s[pos:j]
		next := j + 1
		bareCR := false
		if s[j] == '\r' {
			if j+1 < len(s) && s[j+1] == '\n' {
				next = j + 2
			} else {
				bareCR = true
			}
		}
		full := s[pos:next]
		pos = next
		if bareCR {
			res.Refused = true
			return res
		}
		if text == "" {
			raw.WriteString(full)
			cur.Raw = raw.String()
			if pos-start > max {
				res.TooLarge = true
				return res
			}
			cur.DataLines = len(data)
			cur.Data = strings.Join(data, "\n")
			cur.Comment = comments > 0 && fields == 0
			cur.Done = len(data) > 0 && cur.Data == "[DONE]"
			cur.Seq = uint64(len(res.Frames))
			cur.Offset = int64(start)
			res.Frames = append(res.Frames, cur)
			cur, data, comments, fields = refFrame{}, nil, 0, 0
			raw.Reset()
			start = pos
			continue
		}
		if text[0] == ':' {
			comments++
			raw.WriteString(full)
			continue
		}
		name, value, found := strings.Cut(text, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		if !known[name] {
			trimmed := strings.TrimLeftFunc(text, func(r rune) bool { return r == '\uFEFF' || unicode.IsSpace(r) })
			if trimmed != text && trimmed != "" && trimmed[0] != ':' {
				lenient, _, _ := strings.Cut(trimmed, ":")
				if known[lenient] {
					res.Refused = true
					return res
				}
			}
			continue
		}
		fields++
		raw.WriteString(full)
		switch name {
		case "data":
			inner := strings.Trim(value, " \t")
			if len(data) > 0 || strings.TrimLeftFunc(inner, unicode.IsSpace) != inner || strings.TrimRightFunc(inner, unicode.IsSpace) != inner {
				res.Refused = true
				return res
			}
			data = append(data, value)
		case "event":
			cur.Event, cur.HasEvent = value, true
		case "id":
			cur.ID, cur.HasID = value, true
		}
	}
	res.Trailing = s[start:]
	if len(res.Trailing) > max {
		res.TooLarge = true
	}
	return res
}

// diffRelayResults compares relay results: which of the two errors stops a
// stream at an event that is both oversized and refused depends on how the
// input was cut, so only whether it stopped, and where, must agree.
func diffRelayResults(a, b refResult) string {
	if a.TooLarge || a.Refused || b.TooLarge || b.Refused {
		if (a.TooLarge || a.Refused) != (b.TooLarge || b.Refused) {
			return fmt.Sprintf("stopped: tooLarge %v refused %v vs tooLarge %v refused %v", a.TooLarge, a.Refused, b.TooLarge, b.Refused)
		}
		a.TooLarge, b.TooLarge = true, true
	}
	a.Refused, b.Refused = false, false
	return diffResults(a, b)
}

// parseSplit runs SSEParser over in, cut at the given increasing offsets.
func parseSplit(in []byte, cuts []int, max int) (refResult, error) {
	return parseSplitWith(NewSSEParser(max), in, cuts)
}

// parseRelaySplit runs a relay parser over in, cut at the given offsets.
func parseRelaySplit(in []byte, cuts []int, max int) (refResult, error) {
	return parseSplitWith(NewRelaySSEParser(max), in, cuts)
}

func parseSplitWith(p *SSEParser, in []byte, cuts []int) (refResult, error) {
	var res refResult
	drain := func() error {
		for {
			f, err := p.Next()
			if err != nil {
				if errors.Is(err, ErrEventTooLarge) {
					res.TooLarge = true
					return nil
				}
				if errors.Is(err, ErrSSEAmbiguous) {
					res.Refused = true
					return nil
				}
				return err
			}
			if f == nil {
				return nil
			}
			res.Frames = append(res.Frames, ownFrame(f))
		}
	}
	prev := 0
	for _, c := range append(cuts, len(in)) {
		if c < prev || c > len(in) {
			continue
		}
		p.Feed(in[prev:c])
		prev = c
		if err := drain(); err != nil || res.TooLarge || res.Refused {
			return res, err
		}
	}
	p.End()
	if err := drain(); err != nil || res.TooLarge || res.Refused {
		return res, err
	}
	res.Trailing = string(p.Trailing())
	return res, nil
}

func everyByte(n int) []int {
	cuts := make([]int, n)
	for i := range cuts {
		cuts[i] = i
	}
	return cuts
}

func randomCuts(r *rand.Rand, n int) []int {
	var cuts []int
	for c := 0; c < n; {
		c += 1 + r.Intn(64)
		cuts = append(cuts, c)
	}
	return cuts
}

func diffResults(a, b refResult) string {
	if a.TooLarge != b.TooLarge {
		return fmt.Sprintf("TooLarge %v vs %v", a.TooLarge, b.TooLarge)
	}
	if len(a.Frames) != len(b.Frames) {
		return fmt.Sprintf("%d frames vs %d", len(a.Frames), len(b.Frames))
	}
	for i := range a.Frames {
		if a.Frames[i] != b.Frames[i] {
			return fmt.Sprintf("frame %d:\n  %v\n  %v", i, a.Frames[i], b.Frames[i])
		}
	}
	if !a.TooLarge && a.Trailing != b.Trailing {
		return fmt.Sprintf("trailing %q vs %q", a.Trailing, b.Trailing)
	}
	return ""
}

func concatRaw(r refResult) []byte {
	var b bytes.Buffer
	for _, f := range r.Frames {
		b.WriteString(f.Raw)
	}
	b.WriteString(r.Trailing)
	return b.Bytes()
}
