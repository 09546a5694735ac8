package providers

// ChatFormat is OpenAI's chat completions API.
var ChatFormat = register(Format{
	Name:        "chat",
	Provider:    "openai",
	Routes:      []Route{{Pattern: "/v1/chat/completions"}},
	Auth:        Auth{Header: "Authorization", Prefix: "Bearer "},
	Error:       OpenAIErrorShape,
	MetricLabel: "/v1/chat/completions",
})
