package interceptors

// The interceptors, the exchanges and the optional capabilities each
// exchange brings, checked by the compiler: the proxy finds a capability
// by a type assertion, so an exchange that lost one would silently lose
// its feature (its resend, its overhead figures, its spans' model, its
// truncation record, its stream, its plain passthrough).
var (
	_ Interceptor = (*Chat)(nil)
	_ Interceptor = (*Messages)(nil)
	_ Interceptor = (*Responses)(nil)
	_ Interceptor = (*Codec)(nil)

	_ Exchange = (*chatExchange)(nil)
	_ Exchange = (*messagesExchange)(nil)
	_ Exchange = (*responsesExchange)(nil)
	_ Exchange = (*codecExchange)(nil)

	_ Resender = (*chatExchange)(nil)

	_ StreamReader = (*codecExchange)(nil)

	_ PlainPassthrough = (*chatExchange)(nil)
	_ PlainPassthrough = (*messagesExchange)(nil)
	_ PlainPassthrough = (*responsesExchange)(nil)

	_ Timer = (*chatExchange)(nil)
	_ Timer = (*messagesExchange)(nil)
	_ Timer = (*responsesExchange)(nil)
	_ Timer = (*codecExchange)(nil)

	_ Describer = (*chatExchange)(nil)
	_ Describer = (*messagesExchange)(nil)
	_ Describer = (*responsesExchange)(nil)
	_ Describer = (*codecExchange)(nil)

	_ TruncationRecorder = (*chatExchange)(nil)
	_ TruncationRecorder = (*messagesExchange)(nil)
	_ TruncationRecorder = (*responsesExchange)(nil)
	_ TruncationRecorder = (*codecExchange)(nil)
)
