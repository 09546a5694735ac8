package interceptors

import (
	"bytes"

	"github.com/hookgate/hookgate/providers"
)

// An end frame that repeats the whole answer (providers.CodecFrame.Repeats:
// a snapshot of the output): the calls it lists that were streamed in
// pieces before it (by id, else by key) take those calls' decisions, so
// that the snapshot says what the stream said. They are not judged or
// counted again. A call only the snapshot lists is one of the frame's
// whole calls, judged as such.

// frameRepeats is what an end frame repeats: the streamed calls it lists,
// and, for the calls it carries whole, their index in the frame as decoded.
type frameRepeats struct {
	streamed []repeatedCall
	at       []int // nil: the frame repeats nothing
}

// repeatedCall is a call of an end frame that was streamed in pieces.
type repeatedCall struct {
	at    int        // its index in the frame as decoded
	piece *codecCall // the streamed call
	args  []byte     // the arguments the frame repeats
}

// takeRepeats sets apart the calls of an end frame that were streamed
// before it, by id, else by key; the rest stay the frame's calls. A repeated call
// that names another tool or id than its stream did is refused: a client
// runs what the snapshot says.
func (s *codecStream) takeRepeats(fr *codecFrame) error {
	calls := fr.f.Calls
	fr.f.Calls = nil
	fr.repeats.at = []int{}
	for i, call := range calls {
		p := s.repeatedPiece(&call)
		if p == nil {
			fr.f.Calls = append(fr.f.Calls, call)
			fr.repeats.at = append(fr.repeats.at, i)
			continue
		}
		if !s.unheld && (p.call.Name != call.Name || p.call.ID != call.ID) {
			return s.fail("invalid_tool_call", "the upstream's final output names a call otherwise than its stream did", errCallRenamed)
		}
		fr.repeats.streamed = append(fr.repeats.streamed, repeatedCall{at: i, piece: p, args: call.Args})
	}
	return nil
}

// repeatedPiece finds the streamed call an end frame's call repeats: by
// its id, else by its key.
func (s *codecStream) repeatedPiece(call *providers.CodecCall) *codecCall {
	if call.ID != "" {
		for i := len(s.pieces) - 1; i >= 0; i-- {
			if s.pieces[i].call.ID == call.ID {
				return s.pieces[i]
			}
		}
	}
	return s.open[call.Key]
}

// repeatEdits turns the decisions on an end frame into edits of the frame
// as decoded: those on its own calls (edits, by their index among them)
// moved to their places, and those of the streamed calls it repeats: a
// call that never reached the client removed, a rewritten one given its
// new arguments, one that went out with other arguments than repeated
// given those.
func (s *codecStream) repeatEdits(fr *codecFrame, edits []providers.CallEdit) []providers.CallEdit {
	if fr.repeats.at == nil {
		return edits
	}
	for i := range edits {
		edits[i].Call = fr.repeats.at[edits[i].Call]
	}
	for _, r := range fr.repeats.streamed {
		c := r.piece
		switch {
		case c.abandoned || !c.decided || !c.kept:
			edits = append(edits, providers.CallEdit{Call: r.at, Remove: true})
		case c.rewritten:
			edits = append(edits, providers.CallEdit{Call: r.at, Args: c.v.Arguments})
		case !bytes.Equal(r.args, c.call.Args):
			edits = append(edits, providers.CallEdit{Call: r.at, Args: c.call.Args})
		}
	}
	return edits
}
