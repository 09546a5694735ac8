package providers

// Anthropic-style errors: {"type":"error","error":{"type":..,"message":..}},
// as a JSON body for an HTTP error status, and as an "event: error" once a
// stream has begun. Both Anthropic SDKs raise their API error for either.

// AppendMessagesErrorBody appends {"type":"error","error":{"type":typ,
// "message":message}} to dst.
func AppendMessagesErrorBody(dst []byte, typ, message string) []byte {
	dst = append(dst, `{"type":"error","error":{"type":`...)
	dst = appendQuoted(dst, typ)
	dst = append(dst, `,"message":`...)
	dst = appendQuoted(dst, message)
	return append(dst, "}}"...)
}

// MessagesErrorBody returns the Anthropic error body.
func MessagesErrorBody(typ, message string) []byte {
	return AppendMessagesErrorBody(make([]byte, 0, 64+len(message)), typ, message)
}

// MessagesErrorEvent returns the error as an "event: error" for a stream
// already under way.
func MessagesErrorEvent(typ, message string) []byte {
	return AppendMessagesEvent(nil, MessagesError, MessagesErrorBody(typ, message))
}

// MessagesErrorType is the Anthropic error type that goes with an HTTP
// status, as the API documents them.
func MessagesErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 408, 504:
		return "timeout_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 400 && status < 500 {
		return "invalid_request_error"
	}
	return "api_error"
}
