package interceptors

// PlainPassthrough is implemented by exchanges that know, before the
// response arrives, whether FinishPlain would hand a plain (non-streamed)
// response back unchanged. When it would, the proxy relays the response
// without reading it into memory.
type PlainPassthrough interface {
	PassesPlainThrough() bool
}

// PassesPlainThrough: no hook watches a chat completion's response.
func (x *chatExchange) PassesPlainThrough() bool { return !x.watchesResponse() }

// PassesPlainThrough: no hook watches a Messages response.
func (x *messagesExchange) PassesPlainThrough() bool { return !x.watchesResponse() }

// PassesPlainThrough: a Responses exchange reads every hooked response, if
// only to lead the response chain back to its session.
func (x *responsesExchange) PassesPlainThrough() bool { return !x.hooked }
