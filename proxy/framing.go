package proxy

import (
	"bytes"
)

// ambiguousFraming reports a request whose length two parties could read
// differently (RFC 9112 6.3): both Content-Length and Transfer-Encoding, or
// a header folded onto a continuation line. fasthttp reads such a request
// one way; an upstream or another proxy might read it another, which is how
// requests are smuggled. hookgate refuses it and closes the connection, so
// nothing after it on the connection is read as a request.
func ambiguousFraming(raw []byte) bool {
	var cl, te bool
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return true // obs-fold
		}
		name, _, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		name = bytes.TrimSpace(name)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			cl = true
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			te = true
		}
	}
	return cl && te
}
