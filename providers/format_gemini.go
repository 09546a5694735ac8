package providers

// GeminiFormat is Google's Gemini API, generateContent and
// streamGenerateContent in v1 and v1beta, read by GeminiCodec. A stream is
// server-sent events with alt=sse and one JSON array streamed without it;
// any other alt is not read. The key travels in x-goog-api-key (or, from
// some clients, ?key=, which the proxy strips whenever it swaps keys).
var GeminiFormat = register(Format{
	Name:     "gemini",
	Provider: "gemini",
	Routes: []Route{
		{Pattern: "/v1beta/models/{model}:generateContent", Query: geminiPlainQuery},
		{Pattern: "/v1beta/models/{model}:streamGenerateContent", Query: geminiStreamQuery},
		{Pattern: "/v1/models/{model}:generateContent", Query: geminiPlainQuery},
		{Pattern: "/v1/models/{model}:streamGenerateContent", Query: geminiStreamQuery},
	},
	Auth:         Auth{Header: "x-goog-api-key"},
	Error:        GeminiErrorShape,
	MetricLabel:  "/v1beta/models:generateContent",
	RefusalScope: []string{"/v1beta"},
	Codec:        GeminiCodec,
})

var (
	geminiPlainQuery  = []QueryParam{{Name: "alt", Values: []string{"json"}}}
	geminiStreamQuery = []QueryParam{{Name: "alt", Values: []string{"sse", "json"}}}
)
