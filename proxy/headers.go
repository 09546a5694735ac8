package proxy

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// hopByHop are the headers that describe one connection, not the message,
// and so are never forwarded (RFC 9110 section 7.6.1).
var hopByHop = [][]byte{
	[]byte("Connection"),
	[]byte("Proxy-Connection"),
	[]byte("Keep-Alive"),
	[]byte("Proxy-Authenticate"),
	[]byte("Proxy-Authorization"),
	[]byte("Te"),
	[]byte("Trailer"),
	[]byte("Transfer-Encoding"),
	[]byte("Upgrade"),
}

// isHopByHop reports whether name is a hop-by-hop header or is named in the
// message's Connection header.
func isHopByHop(name, connection []byte) bool {
	for _, h := range hopByHop {
		if bytes.EqualFold(name, h) {
			return true
		}
	}
	return namedIn(connection, name)
}

// namedIn reports whether the comma-separated list (a Connection header)
// names name, in any case. It reads the list in place: this runs for
// every header of every request and response, and must not allocate.
func namedIn(list, name []byte) bool {
	for len(list) > 0 {
		tok := list
		if i := bytes.IndexByte(list, ','); i >= 0 {
			tok, list = list[:i], list[i+1:]
		} else {
			list = nil
		}
		if bytes.EqualFold(bytes.TrimSpace(tok), name) {
			return true
		}
	}
	return false
}

// copyRequestHeaders copies the client's end-to-end headers to the upstream
// request. Host, Content-Length and the client's credentials are handled by
// the caller.
func copyRequestHeaders(dst *fasthttp.RequestHeader, src *fasthttp.RequestHeader) {
	connection := src.Peek("Connection")
	for k, v := range src.All() {
		if isHopByHop(k, connection) || bytes.EqualFold(k, []byte("Host")) || bytes.EqualFold(k, []byte("Content-Length")) {
			continue
		}
		dst.AddBytesKV(k, v)
	}
}

// copyResponseHeaders copies the upstream's end-to-end headers to the
// client's response; fasthttp writes Content-Length itself.
func copyResponseHeaders(dst *fasthttp.ResponseHeader, src *fasthttp.ResponseHeader) {
	connection := src.Peek("Connection")
	for k, v := range src.All() {
		if isHopByHop(k, connection) || bytes.EqualFold(k, []byte("Content-Length")) {
			continue
		}
		if bytes.EqualFold(k, []byte("Content-Type")) {
			dst.SetContentTypeBytes(v)
			continue
		}
		dst.AddBytesKV(k, v)
	}
}

// delResponseHeaderFold removes every header whose name equals name in any
// case.
func delResponseHeaderFold(h *fasthttp.ResponseHeader, name string) {
	var drop [][]byte
	for k := range h.All() {
		if bytes.EqualFold(k, []byte(name)) {
			drop = append(drop, bytes.Clone(k))
		}
	}
	for _, k := range drop {
		h.DelBytes(k)
	}
}
