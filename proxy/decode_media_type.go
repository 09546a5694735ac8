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
