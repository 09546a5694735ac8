package providers

// MessagesFormat is Anthropic's Messages API. Every Anthropic SDK sends
// anthropic-version; /v1/complete is Anthropic's older text completions,
// refused in this shape too.
var MessagesFormat = register(Format{
	Name:          "messages",
	Provider:      "anthropic",
	Routes:        []Route{{Pattern: "/v1/messages"}},
	Auth:          Auth{Header: "x-api-key"},
	Error:         AnthropicErrorShape,
	MetricLabel:   "/v1/messages",
	ClientHeaders: []string{"anthropic-version"},
	RefusalScope:  []string{"/v1/messages", "/v1/complete"},
})
