package providers

// Why Ollama key spellings are refused: Ollama's Go api client, and the
// Ollama server reading a request, decode with encoding/json, which
// matches member names without regard to case ("Tool_Calls" and
// "TOOL_CALLS" are tool_calls to it, so is "\u0074ool_calls") and keeps
// the last of keys that match; ollama-js and ollama-python read exact
// names. hookgate reads exact names, so a line or body is read only when
// every reader agrees: no object repeats a key (ErrDuplicateKey), and no
// key that folds (case, Unicode simple folding, escapes decoded, '_'
// removed so that "toolCalls" counts as well) to a member name of the
// Ollama API is spelt other than exactly (ErrKeySpelling).

// checkOllamaCanonical is the Ollama canonical-form gate (memberGate).
func checkOllamaCanonical(raw []byte) error { return ollamaGate.check(raw) }

// ollamaFreeForm are members whose values hold keys no reader matches to
// a field: a call's arguments, tool schemas, model options, a format
// schema.
var ollamaFreeForm = map[string]struct{}{
	"arguments": {}, "parameters": {}, "properties": {}, "options": {},
	"format": {}, "items": {}, "$defs": {}, "enum": {}, "model_info": {},
	"projector_info": {},
}

// ollamaMemberNames are the JSON names of the fields of the types in
// Ollama's Go api package (api/types.go): ChatRequest, ChatResponse,
// Message, ToolCall, Tool and the rest, with the error lines' members.
// TestOllamaMemberNamesCoverOracle keeps the oracle's types inside it.
var ollamaMemberNames = [...]string{
	"$defs", "_debug_info", "_debug_render_only", "adapters", "anyOf",
	"arguments", "avatarurl", "bio", "bytes", "capabilities", "cloud",
	"completed", "content", "context", "context_length", "created_at",
	"description", "destination", "details", "digest", "dimensions",
	"disabled", "done", "done_reason", "draft_files", "draft_num_predict",
	"draft_quantize", "email", "embedding", "embedding_length", "embeddings",
	"enum", "error", "eval_count", "eval_duration", "expires_at", "families",
	"family", "files", "firstname", "format", "frequency_penalty", "from",
	"function", "id", "image_count", "images", "index", "info", "input",
	"insecure", "items", "keep_alive", "lastname", "license", "links",
	"load_duration", "logprob", "logprobs", "main_gpu", "max_output_tokens",
	"max_results", "message", "messages", "min_p", "model", "model_info",
	"modelfile", "models", "modified_at", "name", "num_batch", "num_ctx",
	"num_gpu", "num_keep", "num_predict", "num_thread", "options",
	"parameter_size", "parameters", "parent_model", "parser", "password",
	"plan", "presence_penalty", "projector_info", "prompt",
	"prompt_eval_count", "prompt_eval_duration", "properties", "quantization",
	"quantization_level", "quantize", "query", "raw", "recommendations",
	"remote_host", "remote_model", "rendered_template", "renderer",
	"repeat_last_n", "repeat_penalty", "required", "required_plan",
	"requires", "response", "results", "role", "seed", "shape", "shift",
	"signin_url", "size", "size_vram", "source", "status", "stop", "stream",
	"suffix", "system", "temperature", "template", "tensors", "think",
	"thinking", "title", "token", "tool_call_id", "tool_calls", "tool_name",
	"tools", "top_k", "top_logprobs", "top_p", "total", "total_duration",
	"truncate", "type", "typical_p", "url", "use_mmap", "username",
	"verbose", "vram_bytes",
}

// ollamaGate is the gate over ollamaMemberNames and ollamaFreeForm.
var ollamaGate = newMemberGate("Ollama", ollamaMemberNames[:], ollamaFreeForm)
