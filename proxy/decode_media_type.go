package proxy

import "bytes"

// mediaTypeIs reports whether a Content-Type value names the media type
// want (lower case): its type and subtype compared without regard to case
// (RFC 9110 section 8.3.1), its parameters ("; charset=utf-8") and the
// spaces around it ignored. "Text/Event-Stream" is an event stream, as
// both official SDKs read it; "text/event-streams" is not.
func mediaTypeIs(contentType []byte, want string) bool {
	mt, _, _ := bytes.Cut(contentType, []byte(";"))
	return bytes.EqualFold(bytes.Trim(mt, " \t"), []byte(want))
}

// acceptsEventStream reports whether an Accept value lists
// text/event-stream among its media ranges, in any case and with any
// parameters ("Text/Event-Stream; q=0.9").
func acceptsEventStream(accept []byte) bool {
	for len(accept) > 0 {
		var r []byte
		r, accept, _ = bytes.Cut(accept, []byte(","))
		if mediaTypeIs(r, "text/event-stream") {
			return true
		}
	}
	return false
}
