package providers

// OllamaFormat is Ollama's native chat API, POST /api/chat, read by
// OllamaCodec: an NDJSON stream unless the request says "stream": false.
// A key (Ollama's cloud, or a proxy in front of a local server) travels
// as Authorization: Bearer.
var OllamaFormat = register(Format{
	Name:         "ollama",
	Provider:     "ollama",
	Routes:       []Route{{Pattern: "/api/chat"}},
	Auth:         Auth{Header: "Authorization", Prefix: "Bearer "},
	Error:        OllamaErrorShape,
	MetricLabel:  "/api/chat",
	RefusalScope: []string{"/api/chat", "/api/generate"},
	Codec:        OllamaCodec,
})
