package oracle

// jsonKey is one object key of a JSON text: the span of its string token
// (quotes included), its raw text between the quotes, and the span of the
// value that follows it.
type jsonKey struct {
	start, end           int // the key's string token
	raw                  string
	valueStart, valueEnd int
	depth                int // 1 for the top level's members
}

// jsonKeys lists every object key of a JSON text in order, at any depth,
// with the span of its value. Keys inside string values (a tool call's
// arguments) are not keys of this text and are not listed. Malformed text
// gives what was found before the fault.
func jsonKeys(s string) []jsonKey {
	var out []jsonKey
	sc := &jsonScanner{s: s}
	sc.value(0, &out)
	return out
}

type jsonScanner struct {
	s string
	i int
}

func (sc *jsonScanner) ws() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// str skips a string token starting at sc.i, reporting false when the text
// ends inside it.
func (sc *jsonScanner) str() bool {
	sc.i++
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case '\\':
			sc.i += 2
			continue
		case '"':
			sc.i++
			return true
		}
		sc.i++
	}
	return false
}

func (sc *jsonScanner) value(depth int, out *[]jsonKey) bool {
	sc.ws()
	if sc.i >= len(sc.s) {
		return false
	}
	switch sc.s[sc.i] {
	case '"':
		return sc.str()
	case '{':
		sc.i++
		for {
			sc.ws()
			if sc.i >= len(sc.s) {
				return false
			}
			if sc.s[sc.i] == '}' {
				sc.i++
				return true
			}
			if sc.s[sc.i] == ',' {
				sc.i++
				continue
			}
			if sc.s[sc.i] != '"' {
				return false
			}
			k := jsonKey{start: sc.i, depth: depth + 1}
			if !sc.str() {
				return false
			}
			k.end = sc.i
			k.raw = sc.s[k.start+1 : k.end-1]
			sc.ws()
			if sc.i >= len(sc.s) || sc.s[sc.i] != ':' {
				return false
			}
			sc.i++
			sc.ws()
			k.valueStart = sc.i
			pos := len(*out)
			*out = append(*out, k)
			if !sc.value(depth+1, out) {
				return false
			}
			(*out)[pos].valueEnd = sc.i
		}
	case '[':
		sc.i++
		for {
			sc.ws()
			if sc.i >= len(sc.s) {
				return false
			}
			switch sc.s[sc.i] {
			case ']':
				sc.i++
				return true
			case ',':
				sc.i++
				continue
			}
			if !sc.value(depth+1, out) {
				return false
			}
		}
	default:
		for sc.i < len(sc.s) {
			switch sc.s[sc.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return true
			}
			sc.i++
		}
		return true
	}
}
