package providers

// ResponsesFormat is OpenAI's Responses API.
var ResponsesFormat = register(Format{
	Name:        "responses",
	Provider:    "openai",
	Routes:      []Route{{Pattern: "/v1/responses"}},
	Auth:        Auth{Header: "Authorization", Prefix: "Bearer "},
	Error:       OpenAIErrorShape,
	MetricLabel: "/v1/responses",
})
