package providers

// OpenAI-style errors, as agents' SDKs expect them: a JSON body for an HTTP
// error status, and the same object as an SSE event once a stream has begun
// (after a 200 the status can no longer change). The OpenAI SDKs raise an
// API error for a data event whose payload has a top-level "error", with or
// without an "event: error" line; the plain data form is the one every
// version understands.

// AppendErrorBody appends {"error":{"message":..,"type":..,"code":..}} to
// dst. An empty code is written as null, as OpenAI does.
func AppendErrorBody(dst []byte, message, typ, code string) []byte {
	dst = append(dst, `{"error":{"message":`...)
	dst = appendQuoted(dst, message)
	dst = append(dst, `,"type":`...)
	dst = appendQuoted(dst, typ)
	dst = append(dst, `,"code":`...)
	dst = appendJSONOrNull(dst, code)
	return append(dst, "}}"...)
}

// ErrorBody returns the OpenAI error body.
func ErrorBody(message, typ, code string) []byte {
	return AppendErrorBody(nil, message, typ, code)
}
