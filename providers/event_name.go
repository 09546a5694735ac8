package providers

// EventNameMatches reports whether an SSE event's "event:" line agrees with
// its payload's "type": an event without the line always does; with it, the
// name must be the type, decoded. The Anthropic SDKs dispatch on the name
// and read the payload by its type, the OpenAI SDKs read the type alone, so
// an event whose two names differ is read as two different events. Every
// recorded stream agrees; one that does not is refused.
func EventNameMatches(name []byte, typ Field) bool {
	if name == nil {
		return true
	}
	if !typ.IsString() {
		return false
	}
	in := typ.Raw[1 : len(typ.Raw)-1]
	if !hasByte(in, '\\') {
		return string(in) == string(name)
	}
	var tmp [128]byte
	return string(appendUnescapedContent(tmp[:0], in)) == string(name)
}
