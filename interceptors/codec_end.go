package interceptors

// What a format keeps past the response: Responses' previous_response_id
// chain records, before the terminal event reaches the agent (which may
// continue the chain at once), the calls the agent got and those hookgate
// blocked (responses_codec.go). codecExchange.onBlock sees each blocked
// call as it is decided; onEnd the payload of the frame that ends the
// answer as the client gets it, before it is written.

// ending hands the payload of a frame that ends the answer, as it goes
// out, to onEnd.
func (x *codecExchange) ending(ends bool, payload []byte) {
	if ends && x.onEnd != nil {
		x.onEnd(payload)
	}
}
