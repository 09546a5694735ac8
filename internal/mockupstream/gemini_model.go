package mockupstream

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The scripted model on Google's native Gemini API, as Gemini CLI speaks
// it: POST {base}/v1beta/models/{model}:{method}, the key in
// x-goog-api-key. AgentScript plays the same conversation here as on the
// other APIs, the step being the number of functionResponse parts in the
// contents the agent sends (Gemini CLI sends the whole conversation every
// time). Besides the turns of the conversation, the CLI asks side
// questions whose answer must be JSON of a given schema (its model
// router's complexity score, its next-speaker check): they are answered
// with an object that fills that schema.

// GeminiHandler answers Gemini's native routes, after any prefix (v1 or
// v1beta):
//   - POST .../models/{model}:streamGenerateContent, as SSE with alt=sse
//     (`data: {json}\r\n\r\n` frames, one per piece of the turn) and as
//     the JSON array stream without it;
//   - POST .../models/{model}:generateContent, the turn as one JSON
//     response, or an object filling generationConfig.responseJsonSchema
//     (or responseSchema) when the request asks for JSON;
//   - POST .../models/{model}:countTokens;
//   - GET .../models, a list of one model.
//
// Anything else goes to Handler, so one mock serves every API.
func (s *AgentScript) GeminiHandler() HandlerFunc {
	other := s.Handler()
	return func(req *Request) Response {
		path := strings.TrimSuffix(req.Path, "/")
		model, method, ok := geminiModelMethod(path)
		switch {
		case !ok && req.Method == http.MethodGet && strings.HasSuffix(path, "/models") && isGeminiVersion(path):
			return JSON(http.StatusOK, []byte(geminiModelsList))
		case !ok:
			return other(req)
		case req.Method != http.MethodPost:
			return GeminiError(http.StatusMethodNotAllowed, "the scripted model answers "+method+" on POST only")
		case !gjson.ValidBytes(req.Body):
			return GeminiError(http.StatusBadRequest, "the request body is not JSON")
		}
		body := gjson.ParseBytes(req.Body)
		switch method {
		case "countTokens":
			return JSON(http.StatusOK, []byte(`{"totalTokens":128}`))
		case "generateContent":
			if schema := geminiResponseSchema(body); schema.Exists() {
				return JSON(http.StatusOK, geminiResponse(model, "schema", []map[string]any{{"text": jsonOf(fillSchema(schema, ""))}}, "STOP"))
			}
			return JSON(http.StatusOK, s.geminiTurn(model, body).geminiObject())
		case "streamGenerateContent":
			t := s.geminiTurn(model, body)
			if queryValue(req.URI, "alt") == "sse" {
				return Stream(t.geminiSSE(), Chunking{Mode: PerEvent})
			}
			return Stream(t.geminiJSONArray(), Chunking{Mode: Whole})
		}
		return GeminiError(http.StatusNotFound, "the scripted model does not answer :"+method)
	}
}

// GeminiError is a response in Google's error shape
// {"error":{"code","message","status"}}.
func GeminiError(status int, message string) Response {
	body := fmt.Sprintf(`{"error":{"code":%d,"message":%s,"status":%s}}`,
		status, strconv.Quote(message), strconv.Quote(geminiStatus(status)))
	return JSON(status, []byte(body))
}

func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusMethodNotAllowed:
		return "UNIMPLEMENTED"
	}
	return "INTERNAL"
}

// geminiModelsList reads as a models.list answer.
const geminiModelsList = `{"models":[{"name":"models/mock-model","displayName":"mock-model","supportedGenerationMethods":["generateContent","countTokens"]}]}`

// geminiThoughtSignature is what the scripted model signs its calls with:
// Gemini 3 models put an opaque thoughtSignature on the first functionCall
// part, and clients send it back with the call in the next request.
var geminiThoughtSignature = base64.StdEncoding.EncodeToString([]byte("mockupstream thought signature"))

// geminiModelMethod splits .../models/{model}:{method}.
func geminiModelMethod(path string) (model, method string, ok bool) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 || !isGeminiVersion(path[:i+len("/models")]) {
		return "", "", false
	}
	model, method, ok = strings.Cut(path[i+len("/models/"):], ":")
	return model, method, ok && model != "" && !strings.Contains(model, "/")
}

// isGeminiVersion reports whether the path's segment before /models is
// one of the API's versions.
func isGeminiVersion(path string) bool {
	path = strings.TrimSuffix(path, "/models")
	v := path[strings.LastIndex(path, "/")+1:]
	return v == "v1" || v == "v1beta" || v == "v1alpha"
}

// queryValue is one query parameter of a request URI.
func queryValue(uri, key string) string {
	_, query, _ := strings.Cut(uri, "?")
	for _, kv := range strings.Split(query, "&") {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

// geminiTurn reads the conversation: the declared function names and the
// functionResponse parts so far.
func (s *AgentScript) geminiTurn(model string, body gjson.Result) agentTurn {
	var declared []string
	for _, tool := range body.Get("tools").Array() {
		for _, fn := range tool.Get("functionDeclarations").Array() {
			declared = append(declared, fn.Get("name").String())
		}
	}
	results := 0
	for _, c := range body.Get("contents").Array() {
		for _, p := range c.Get("parts").Array() {
			if p.Get("functionResponse").Exists() {
				results++
			}
		}
	}
	return s.turn(model, declared, results)
}

// geminiResponseSchema is the JSON schema a request asks its answer to
// fill, if it asks for JSON.
func geminiResponseSchema(body gjson.Result) gjson.Result {
	cfg := body.Get("generationConfig")
	if cfg.Get("responseMimeType").String() != "application/json" {
		return gjson.Result{}
	}
	if s := cfg.Get("responseJsonSchema"); s.Exists() {
		return s
	}
	return cfg.Get("responseSchema")
}

// fillSchema is a value of the schema: every property of an object, the
// first of an enum, 1 for a number, a short string. A property named
// next_speaker is "user", so that Gemini CLI's next-speaker check hands
// the turn back to the user instead of asking the model to go on.
func fillSchema(schema gjson.Result, name string) any {
	if enum := schema.Get("enum").Array(); len(enum) > 0 {
		if name == "next_speaker" {
			for _, e := range enum {
				if e.String() == "user" {
					return "user"
				}
			}
		}
		return enum[0].Value()
	}
	switch strings.ToLower(schema.Get("type").String()) {
	case "object":
		obj := map[string]any{}
		schema.Get("properties").ForEach(func(k, v gjson.Result) bool {
			obj[k.String()] = fillSchema(v, k.String())
			return true
		})
		return obj
	case "array":
		return []any{fillSchema(schema.Get("items"), "")}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	if name == "next_speaker" {
		return "user"
	}
	return "Scripted answer."
}

// geminiParts is the turn's content parts: its text, then its call, which
// carries the thought signature.
func (t agentTurn) geminiParts() []map[string]any {
	var parts []map[string]any
	if t.Text != "" {
		parts = append(parts, map[string]any{"text": t.Text})
	}
	if t.Call != nil {
		parts = append(parts, t.geminiCallPart())
	}
	return parts
}

func (t agentTurn) geminiCallPart() map[string]any {
	return map[string]any{
		"functionCall":     map[string]any{"name": t.Call.Name, "args": json.RawMessage(t.Call.Arguments)},
		"thoughtSignature": geminiThoughtSignature,
	}
}

// geminiResponse is one GenerateContentResponse: one candidate with the
// parts, and the finish reason when finish is not empty.
func geminiResponse(model, id string, parts []map[string]any, finish string) []byte {
	candidate := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if finish != "" {
		candidate["finishReason"] = finish
	}
	return []byte(jsonOf(map[string]any{
		"candidates":    []any{candidate},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
		"modelVersion":  model,
		"responseId":    id,
	}))
}

// geminiObject is the turn as one generateContent answer.
func (t agentTurn) geminiObject() []byte {
	return geminiResponse(t.Model, t.ID, t.geminiParts(), "STOP")
}

// geminiFrames are the turn's streamed responses: the text, the call
// (whole, as Gemini sends calls), then an empty text part with the finish
// reason, as recorded streams end.
func (t agentTurn) geminiFrames() [][]byte {
	var frames [][]byte
	if t.Text != "" {
		frames = append(frames, geminiResponse(t.Model, t.ID, []map[string]any{{"text": t.Text}}, ""))
	}
	if t.Call != nil {
		frames = append(frames, geminiResponse(t.Model, t.ID, []map[string]any{t.geminiCallPart()}, ""))
	}
	return append(frames, geminiResponse(t.Model, t.ID, []map[string]any{{"text": ""}}, "STOP"))
}

// geminiSSE is the turn as ?alt=sse frames, CRLF-delimited as Google
// sends them.
func (t agentTurn) geminiSSE() []byte {
	var b bytes.Buffer
	for _, f := range t.geminiFrames() {
		b.WriteString("data: ")
		b.Write(f)
		b.WriteString("\r\n\r\n")
	}
	return b.Bytes()
}

// geminiJSONArray is the turn as the stream without alt=sse: one JSON
// array of the responses.
func (t agentTurn) geminiJSONArray() []byte {
	return append(append([]byte("["), bytes.Join(t.geminiFrames(), []byte(",\r\n"))...), ']')
}
