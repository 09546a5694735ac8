package providers

// EndsWithNewline reports whether a string member's text ends with a line
// feed, read from its JSON without decoding it: a `\n` or `\u000a` escape
// right before the closing quote, itself not escaped (`\\n` is a backslash
// and an n). A member that is not a string does not.
func (f Field) EndsWithNewline() bool {
	raw := f.Raw
	if len(raw) < 3 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	var escape int // index of the backslash that starts the last escape
	switch {
	case len(body) >= 2 && body[len(body)-1] == 'n' && body[len(body)-2] == '\\':
		escape = len(body) - 2
	case len(body) >= 6 && body[len(body)-6] == '\\' && body[len(body)-5] == 'u' &&
		string(body[len(body)-4:len(body)-1]) == "000" && (body[len(body)-1] == 'a' || body[len(body)-1] == 'A'):
		escape = len(body) - 6
	default:
		return false
	}
	// The backslash starts an escape only if an even number of
	// backslashes precede it.
	n := 0
	for i := escape - 1; i >= 0 && body[i] == '\\'; i-- {
		n++
	}
	return n%2 == 0
}
