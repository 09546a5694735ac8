package providers

import (
	"bytes"
	"fmt"
)

// DefaultMaxSSEEvent is the event size limit NewSSEParser uses when given a
// limit of zero or less. A whole tool call may arrive in one event (Groq,
// xAI, Mistral), so the limit must hold the largest arguments expected.
const DefaultMaxSSEEvent = 8 << 20

// SSEFrame is one Server-Sent Events event as it appeared on the wire.
//
// Every slice aliases the parser's buffers and is valid only until the next
// call of any SSEParser method; copy what must outlive that.
type SSEFrame struct {
	// Raw is the bytes of the event, from the end of the previous event
	// through the blank line that ends this one. From NewSSEParser they are
	// exact: concatenating the Raw of every frame, then
	// SSEParser.Trailing, gives back the input. From NewRelaySSEParser they
	// are the lines it passes on (see there), as they came.
	Raw []byte
	// Event is the value of the last "event:" line; nil if there was none.
	Event []byte
	// Data is the values of the "data:" lines joined with "\n". It is nil
	// when DataLines is 0 and may be empty (but non-nil) when DataLines > 0.
	// A relay parser never yields more than one data line.
	Data []byte
	// ID is the value of the last "id:" line; nil if there was none.
	ID []byte
	// DataLines counts the "data:" lines. Per the SSE rules an event with no
	// data line is never delivered to a client's handler.
	DataLines int
	// Comment reports a comment-only event (": ping", ": OPENROUTER
	// PROCESSING"): at least one comment line and no field line.
	Comment bool
	// Done reports Data == "[DONE]", the chat-completions end marker.
	Done bool
	// Seq numbers the frames of a stream from 0.
	Seq uint64
	// Offset is the stream offset where the event begins.
	Offset int64
}

// HasData reports whether the event carried at least one data line.
func (f *SSEFrame) HasData() bool { return f.DataLines > 0 }

// SSEParser splits a byte stream into SSE events, incrementally: input may
// be cut at any byte, including between the CR and LF of a line ending. It
// understands LF, CR and CRLF line endings, "data:" with or without one
// leading space, comment lines, and fields in any order (Bedrock sends
// "data:" before "event:"). A line whose field name is unknown (including
// " data:", with a leading space) is ignored, as the SSE rules demand; the
// frame keeps its bytes. "retry:" lines are kept but not interpreted, and a
// leading byte-order mark is not stripped.
//
// A relay parser (NewRelaySSEParser) reads what hookgate passes on to a
// client, and holds the line forms clients read in different ways (see
// sse_readings.go): it fails with an *SSELineFormError (wrapping
// ErrSSEAmbiguous) at a bare CR line ending, a second data line in one
// event, a data value edged with white space JSON does not allow, or a line
// of an unknown field that a lenient client reads as a known one. Other
// lines of unknown fields are left out of Raw, and so is a byte-order mark
// at the very start of the stream: every client then reads the frames as
// the parser did. An event whose lines are all known keeps Raw aliasing
// the input, as from NewSSEParser.
//
// Usage: Feed a chunk, then call Next until it returns a nil frame; repeat.
// At end of input call End, drain Next again, then read Trailing.
//
// An event whose final blank line ends in a bare CR that happens to be the
// last byte fed is held until the next byte shows whether an LF follows, or
// until End. CRLF streams see this only when a read splits CR from LF.
//
// The parser keeps the unfinished remainder of its input and compacts it
// on the next Feed. Once the buffered part of one event exceeds the maximum
// size, Next returns ErrEventTooLarge and the parser stays failed until
// Reset. Steady state allocates nothing: buffers are reused.
//
// A parser is not safe for concurrent use.
type SSEParser struct {
	max   int
	relay bool // see NewRelaySSEParser

	buf       []byte
	evStart   int  // start of the unfinished event in buf
	lineStart int  // start of the line being scanned
	pos       int  // scan position; [lineStart, pos) holds no line ending
	crPending bool // a CR ended the previous line; an LF right after it belongs to it
	crEnds    bool // that CR ended the blank line closing the event
	ended     bool
	err       error

	// The event being built; offsets are relative to evStart so that
	// compaction does not move them.
	eventOff, eventEnd int
	hasEvent           bool
	idOff, idEnd       int
	hasID              bool
	data0Off, data0End int
	dataLines          int
	dataBuf            []byte // joined data when dataLines > 1
	comments, fields   int

	// Relay parsers only.
	bomDecided bool   // whether the stream begins with a byte-order mark is known
	skip       int    // leading bytes of the event outside any line (that mark)
	dropped    bool   // the event has a line Raw leaves out
	rawBuf     []byte // Raw of an event with a line left out

	seq       uint64
	discarded int64 // stream offset of buf[0]
	frame     SSEFrame
}

// NewSSEParser returns a parser whose events may be at most maxEvent bytes
// (DefaultMaxSSEEvent when maxEvent <= 0).
func NewSSEParser(maxEvent int) *SSEParser {
	if maxEvent <= 0 {
		maxEvent = DefaultMaxSSEEvent
	}
	return &SSEParser{max: maxEvent}
}

// NewRelaySSEParser returns a parser for a stream relayed to a client:
// one that refuses the line forms clients read in different ways and
// leaves out of Raw the lines no client reads (see SSEParser).
func NewRelaySSEParser(maxEvent int) *SSEParser {
	p := NewSSEParser(maxEvent)
	p.relay = true
	return p
}

// Reset prepares the parser for a new stream, keeping its buffers and limit.
func (p *SSEParser) Reset() {
	*p = SSEParser{max: p.max, relay: p.relay, buf: p.buf[:0], dataBuf: p.dataBuf[:0], rawBuf: p.rawBuf[:0]}
}

// Feed appends input. b is copied; the caller may reuse it at once. Call Next
// until it returns nil before feeding again, or the buffer grows by what is
// fed.
func (p *SSEParser) Feed(b []byte) {
	if p.err != nil {
		return
	}
	if p.ended {
		p.err = ErrFeedAfterEnd
		return
	}
	if p.evStart > 0 {
		n := copy(p.buf, p.buf[p.evStart:])
		p.buf = p.buf[:n]
		p.lineStart -= p.evStart
		p.pos -= p.evStart
		p.discarded += int64(p.evStart)
		p.evStart = 0
	}
	if p.pos == len(p.buf) && !p.crPending && len(p.buf)+len(b) > p.max && !bytes.ContainsAny(b, "\r\n") {
		// The unfinished event cannot end within this input and would
		// pass the limit: fail now rather than grow the buffer past it. (A
		// pending CR may still end an event: then the next call decides.)
		p.err = fmt.Errorf("sse: event at offset %d: more than %d bytes: %w", p.discarded, p.max, ErrEventTooLarge)
		return
	}
	if need := len(p.buf) + len(b); need > cap(p.buf) {
		// Double, rather than append's gentler growth for large slices:
		// a multi-megabyte event then costs about twice its size in
		// allocations, not five times.
		grown := make([]byte, len(p.buf), max(need, 2*cap(p.buf)))
		copy(grown, p.buf)
		p.buf = grown
	}
	p.buf = append(p.buf, b...)
}

// End marks the end of input. Next then delivers the events still buffered
// (a final blank line ending in CR counts as complete) and Trailing holds
// whatever follows the last complete event.
func (p *SSEParser) End() { p.ended = true }

// Trailing returns the bytes after the last complete event: after End and a
// drained Next, a non-empty result means the stream stopped mid-event. The
// slice aliases the parser's buffer (valid until the next method call). A
// relay parser's are as they came: nothing is left out of them.
func (p *SSEParser) Trailing() []byte { return p.buf[p.evStart:] }

// Next returns the next complete event, or (nil, nil) when more input is
// needed (or, after End, when the stream is drained). The frame and its
// slices are valid until the next method call.
func (p *SSEParser) Next() (*SSEFrame, error) {
	if p.err != nil {
		return nil, p.err
	}
	if p.relay && !p.bomDecided && !p.decideBOM() {
		return nil, nil
	}
	for {
		if p.crPending {
			if p.pos >= len(p.buf) {
				if !p.ended {
					break
				}
				p.crPending = false
				if p.relay {
					return nil, p.refuse(p.pos-1, formBareCR)
				}
				if p.crEnds {
					p.crEnds = false
					return p.emit(p.pos)
				}
				break
			}
			p.crPending = false
			if p.buf[p.pos] == '\n' {
				p.pos++
				p.lineStart = p.pos
			} else if p.relay {
				return nil, p.refuse(p.pos-1, formBareCR)
			}
			if p.crEnds {
				p.crEnds = false
				return p.emit(p.pos)
			}
		}
		i := indexLineEnd(p.buf[p.pos:])
		if i < 0 {
			p.pos = len(p.buf)
			break
		}
		end := p.pos + i
		blank := end == p.lineStart
		if !blank {
			if err := p.line(p.lineStart, end); err != nil {
				return nil, err
			}
		}
		p.pos = end + 1
		p.lineStart = p.pos
		if p.buf[end] == '\r' {
			p.crPending = true
			p.crEnds = blank
			continue
		}
		if blank {
			return p.emit(p.pos)
		}
	}
	if n := len(p.buf) - p.evStart; n > p.max {
		p.err = fmt.Errorf("sse: event at offset %d: %d buffered bytes, limit %d: %w",
			p.discarded+int64(p.evStart), n, p.max, ErrEventTooLarge)
		return nil, p.err
	}
	return nil, nil
}

// indexLineEnd returns the index of the first CR or LF in b, or -1.
func indexLineEnd(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	if lf < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if cr := bytes.IndexByte(b[:lf], '\r'); cr >= 0 {
		return cr
	}
	return lf
}

// decideBOM settles, at the start of a relayed stream, whether it begins
// with a byte-order mark, which is then left out. It reports false while
// the bytes so far are a part of one.
func (p *SSEParser) decideBOM() bool {
	if len(p.buf) < len(sseBOM) && !p.ended && bytes.HasPrefix([]byte(sseBOM), p.buf) {
		return false
	}
	p.bomDecided = true
	if bytes.HasPrefix(p.buf, []byte(sseBOM)) {
		p.skip = len(sseBOM)
		p.pos, p.lineStart = p.skip, p.skip
	}
	return true
}

// refuse fails a relay parser at the line form found at buf[at].
func (p *SSEParser) refuse(at int, form string) error {
	p.err = &SSELineFormError{Offset: p.discarded + int64(at), Form: form}
	return p.err
}

// line records the non-blank line buf[start:end] into the event being built.
// Only a relay parser fails, at a line form it refuses.
func (p *SSEParser) line(start, end int) error {
	b := p.buf[start:end]
	if b[0] == ':' {
		p.comments++
		return nil
	}
	name := b
	vs, ve := end, end
	if c := bytes.IndexByte(b, ':'); c >= 0 {
		name = b[:c]
		vs = start + c + 1
		if vs < end && p.buf[vs] == ' ' {
			vs++
		}
	}
	if p.relay && !knownSSEField(name) {
		if readsAsField(b) {
			return p.refuse(start, formLenientField)
		}
		p.dropped = true
		return nil
	}
	p.fields++
	base := p.evStart
	switch string(name) {
	case "data":
		if p.relay {
			if p.dataLines > 0 {
				return p.refuse(start, formSeveralData)
			}
			if ambiguousDataValue(p.buf[vs:ve]) {
				return p.refuse(start, formDataSpace)
			}
		}
		p.dataLines++
		switch p.dataLines {
		case 1:
			p.data0Off, p.data0End = vs-base, ve-base
			return nil
		case 2:
			p.dataBuf = append(p.dataBuf[:0], p.buf[base+p.data0Off:base+p.data0End]...)
		}
		p.dataBuf = append(p.dataBuf, '\n')
		p.dataBuf = append(p.dataBuf, p.buf[vs:ve]...)
	case "event":
		p.hasEvent = true
		p.eventOff, p.eventEnd = vs-base, ve-base
	case "id":
		p.hasID = true
		p.idOff, p.idEnd = vs-base, ve-base
	}
	return nil
}

// emit closes the event at buf[evStart:end] and returns its frame.
func (p *SSEParser) emit(end int) (*SSEFrame, error) {
	in := p.buf[p.evStart:end:end]
	if len(in) > p.max {
		p.err = fmt.Errorf("sse: event %d at offset %d: %d bytes, limit %d: %w",
			p.seq, p.discarded+int64(p.evStart), len(in), p.max, ErrEventTooLarge)
		return nil, p.err
	}
	raw := in
	if p.dropped || p.skip > 0 {
		p.rawBuf = appendRelayedLines(p.rawBuf[:0], in[p.skip:])
		raw = p.rawBuf[:len(p.rawBuf):len(p.rawBuf)]
	}
	f := &p.frame
	*f = SSEFrame{
		Raw:       raw,
		DataLines: p.dataLines,
		Comment:   p.comments > 0 && p.fields == 0,
		Seq:       p.seq,
		Offset:    p.discarded + int64(p.evStart),
	}
	if p.hasEvent {
		f.Event = in[p.eventOff:p.eventEnd:p.eventEnd]
	}
	if p.hasID {
		f.ID = in[p.idOff:p.idEnd:p.idEnd]
	}
	switch {
	case p.dataLines == 1:
		f.Data = in[p.data0Off:p.data0End:p.data0End]
	case p.dataLines > 1:
		f.Data = p.dataBuf
	}
	f.Done = p.dataLines > 0 && string(f.Data) == "[DONE]"

	p.seq++
	p.evStart = end
	p.hasEvent, p.hasID, p.dropped = false, false, false
	p.dataLines, p.comments, p.fields, p.skip = 0, 0, 0, 0
	return f, nil
}
