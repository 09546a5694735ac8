package providers

import (
	"bytes"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Why key spellings are refused: Go's encoding/json (under go-openai,
// openai-go and anthropic-sdk-go) matches an object key to a struct field
// after unescaping it and without regard to case, with Unicode simple
// folding ("Tool_Calls", "\u0043hoices", "choice\u017f" with a long s and
// the Kelvin sign all match), and the last matching key wins. gjson and
// hookgate's scanners read the exact first key. A frame or body is relayed
// only when both readings agree: no object at any depth repeats a key
// (ErrDuplicateKey), and no key that unescapes and folds to a member name
// of the formats is spelt other than exactly (ErrKeySpelling).

// ErrKeySpelling: an object key is an escaped, case or Unicode-folded
// variant of a member name the wire formats define; a Go client would read
// it as that member. It wraps ErrInvalidJSON.
var ErrKeySpelling = fmt.Errorf("object key is a variant spelling of a member name: %w", ErrInvalidJSON)

// IsAmbiguousKey reports an error of the canonical-form gate: a repeated
// key or a variant spelling. A frame failing so may carry a call that a
// client reads and hookgate did not, so it is never relayed.
func IsAmbiguousKey(err error) bool {
	return errors.Is(err, ErrDuplicateKey) || errors.Is(err, ErrKeySpelling)
}

// checkCanonical is the canonical-form gate of answers (stream frames and
// plain bodies): validation as gjson.ValidBytes (ErrInvalidJSON), no
// repeated key at any depth (ErrDuplicateKey), no variant spelling of a
// member name (ErrKeySpelling). One pass; it allocates nothing for
// ordinary payloads.
func checkCanonical(raw []byte) error { return validateKeys(raw, nil, keyRules{spelling: true}) }

// ErrAmbiguousArguments: a tool call's arguments hold an object whose keys
// clients read differently: a key repeated, two keys equal under folding
// ("command" and "Command": a Go struct keeps the last, a map both), or a
// "__proto__" key (JavaScript objects give it meaning). It wraps
// ErrInvalidJSON.
var ErrAmbiguousArguments = fmt.Errorf("tool call arguments with ambiguous keys: %w", ErrInvalidJSON)

// CheckArgumentKeys fails for tool-call arguments (valid JSON or not) that
// hookgate must not judge: invalid JSON (ErrInvalidJSON), a repeated key
// at any depth (ErrDuplicateKey), keys of one object equal under folding
// or a "__proto__" key anywhere (ErrAmbiguousArguments). One pass.
func CheckArgumentKeys(raw []byte) error {
	err := validateKeys(raw, nil, keyRules{siblings: true})
	if errors.Is(err, ErrDuplicateKey) {
		return fmt.Errorf("%w: %w", ErrAmbiguousArguments, err)
	}
	return err
}

// foldKey is k with each rune replaced by the smallest of its folding
// orbit: two keys are bytes.EqualFold exactly when their foldKeys are equal.
func foldKey(k []byte) []byte {
	out := make([]byte, 0, len(k))
	for _, r := range string(k) {
		out = utf8.AppendRune(out, smallestFold(r))
	}
	return out
}

// foldDistinct fails if two of one object's (decoded) keys are equal
// under folding, as bytes.EqualFold (encoding/json's field matching). Only
// objects with a key outside [a-z0-9_] can hold such a pair, so the common
// object costs one byte scan.
func foldDistinct(own [][]byte) error {
	odd := false
	for _, k := range own {
		if !plainKey(k) {
			odd = true
			break
		}
	}
	if !odd {
		return nil
	}
	if len(own) > 32 {
		// Pairs grow with the square: many keys are folded into a set.
		seen := make(map[string]struct{}, len(own))
		for _, k := range own {
			f := string(foldKey(k))
			if _, ok := seen[f]; ok {
				return fmt.Errorf("keys folding to %q repeated: %w", f, ErrAmbiguousArguments)
			}
			seen[f] = struct{}{}
		}
		return nil
	}
	for i := 1; i < len(own); i++ {
		for j := 0; j < i; j++ {
			if bytes.EqualFold(own[i], own[j]) {
				return fmt.Errorf("keys %q and %q fold to one: %w", own[j], own[i], ErrAmbiguousArguments)
			}
		}
	}
	return nil
}

// variantSpelling reports whether k, a raw key between its quotes, decodes
// and folds (bytes.EqualFold, as encoding/json matches fields) to a member
// name without being that exact spelling; it returns the member.
func variantSpelling(k []byte) (string, bool) {
	if plainKey(k) || len(k) > 6*maxMemberLen {
		// Only [a-z0-9_] bytes: an exact spelling or no member at all.
		// Longer than six raw bytes per character (\uXXXX): no member.
		return "", false
	}
	var ftmp [64]byte
	folded, ok := foldMemberName(ftmp[:0], k, false, maxMemberLen)
	if !ok {
		return "", false
	}
	if _, ok := memberIndex[string(folded)]; !ok {
		return "", false
	}
	name := string(folded)
	return name, hasByte(k, '\\') || string(k) != name
}

// foldMemberName appends to dst a raw key (between its quotes) with its escapes
// decoded and folded as encoding/json matches fields: each rune to the
// smallest of its simple-folding orbit, then ASCII to lower case; '_' is
// dropped when dropUnderscore (protobuf-JSON readers match snake_case).
// ok is false when a rune folds outside ASCII (no member name does) or the
// result grows past max bytes.
func foldMemberName(dst, k []byte, dropUnderscore bool, max int) (folded []byte, ok bool) {
	var utmp [256]byte
	d := k
	if hasByte(k, '\\') {
		d = appendUnescapedContent(utmp[:0], k)
	}
	folded = dst
	for i := 0; i < len(d); {
		c := d[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(d[i:])
			i += n
			r = smallestFold(r)
			if r >= utf8.RuneSelf {
				return nil, false
			}
			c = byte(r)
		} else {
			i++
		}
		if c == '_' && dropUnderscore {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		folded = append(folded, c)
		if len(folded) > max {
			return nil, false
		}
	}
	return folded, true
}

// plainKey reports a key made only of [a-z0-9_] bytes.
func plainKey(k []byte) bool {
	for _, c := range k {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// smallestFold is the smallest rune of r's simple-folding orbit, the
// representative encoding/json folds a name to (U+017F long s to 'S', the
// Kelvin sign to 'K').
func smallestFold(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// freeFormMembers hold objects whose keys no SDK matches to struct fields:
// the SDKs keep them as maps or raw values (tool input, JSON schemas,
// metadata, moderation scores). Keys inside are still checked for
// repeats, not for spelling: a tool input's "Path" is the tool's business,
// and the hook judges the arguments by their own rules (repeated or
// case-folded sibling keys block the call).
var freeFormMembers = map[string]struct{}{
	"attributes": {}, "categories": {}, "category_applied_input_types": {},
	"category_scores": {}, "env": {}, "headers": {}, "input": {},
	"input_schema": {}, "metadata": {}, "output_schema": {}, "parameters": {},
	"schema": {}, "variables": {},
}

// isFreeForm reports whether the exact key k names a free-form member.
func isFreeForm(k []byte) bool {
	_, ok := freeFormMembers[string(k)]
	return ok
}

// memberNames is every JSON member name a struct field of the three
// formats' SDK answer types is matched to (go-openai chat stream and
// completion responses; openai-go chat chunks and completions, Responses
// stream events and responses; anthropic-sdk-go message stream events and
// messages), one set for all formats: a variant of any of them is refused
// wherever it appears. TestMemberNamesCoverSDKs keeps it complete.
var memberNames = [...]string{
	"accepted_prediction_tokens", "access_programs",
	"acknowledged_safety_checks", "action", "actions", "allowed_callers",
	"allowed_domains", "allowed_tools", "always", "annotation",
	"annotation_index", "annotations", "approval_request_id", "approve",
	"arguments", "async", "attributes", "audio", "audio_tokens",
	"authorization", "background", "button", "bytes", "cache_creation",
	"cache_creation_input_tokens", "cache_miss_reason",
	"cache_missed_input_tokens", "cache_missed_tokens",
	"cache_read_input_tokens", "cache_write_tokens",
	"cache_write_tokens_details", "cached_image_tokens", "cached_text_tokens",
	"cached_tokens", "cached_tokens_details", "call_id", "caller",
	"caller_id", "categories", "category", "category_applied_input_types",
	"category_scores", "choices", "citation", "citations", "cited_text",
	"city", "code", "command", "command_index", "commands",
	"comparison_response_id", "comparison_reusable_tokens", "completed_at",
	"completion_tokens", "completion_tokens_details", "complexity",
	"connector_id", "container", "container_id", "content", "content_block",
	"content_filter_results", "content_index", "context",
	"context_compression", "conversation", "country", "created", "created_at",
	"created_by", "custom", "cyber", "data", "defer_loading", "definition",
	"delta", "description", "detail", "detailed_explanation", "detected",
	"diagnostics", "diff", "display_height", "display_width",
	"document_index", "document_title", "domain", "domain_secrets", "effort",
	"embedding_weight", "enabled", "encrypted_content", "encrypted_index",
	"encrypted_stdout", "end_block_index", "end_char_index", "end_index",
	"end_page_number", "env", "environment", "ephemeral_1h_input_tokens",
	"ephemeral_5m_input_tokens", "error", "error_code", "error_message",
	"error_type", "execution", "exit_code", "expires_at", "explanation",
	"external_web_access", "file_data", "file_id", "file_ids", "file_type",
	"file_url", "filename", "filtered", "filters", "fingerprint",
	"finish_reason", "flagged", "format", "frame_count", "frame_duration_ms",
	"function", "function_call", "generate_summary", "hate", "headers",
	"hybrid_search", "id", "image", "image_gen", "image_tokens", "image_url",
	"incomplete_details", "index", "inference_geo", "input", "input_fidelity",
	"input_image_mask", "input_schema", "input_tokens",
	"input_tokens_details", "instructions", "is_file_update", "item",
	"item_id", "jailbreak", "key", "keys", "lines", "logprob", "logprobs",
	"logs", "max_num_results", "max_output_length", "max_output_tokens",
	"max_tool_calls", "media_type", "memory_limit", "message", "metadata",
	"misalignment", "mode", "model", "moderation", "name", "namespace",
	"network_policy", "never", "new_lines", "new_start", "num_lines",
	"num_requests", "obfuscation", "object", "old_lines", "old_start",
	"operation", "outcome", "output", "output_compression", "output_format",
	"output_index", "output_schema", "output_tokens", "output_tokens_details",
	"outputs", "page_age", "parallel_tool_calls", "param", "parameters",
	"part", "partial_image_b64", "partial_image_index", "partial_images",
	"partial_json", "path", "pattern", "pending_safety_checks", "phase",
	"previous_response_id", "profanity", "prompt", "prompt_annotations",
	"prompt_cache_breakpoint", "prompt_cache_diagnostics", "prompt_cache_key",
	"prompt_cache_options", "prompt_cache_retention", "prompt_filter_results",
	"prompt_index", "prompt_tokens", "prompt_tokens_details", "quality",
	"queries", "query", "ranker", "ranking_options", "read_only", "reason",
	"reasoning", "reasoning_content", "reasoning_tokens", "refusal", "region",
	"rejected_prediction_tokens", "require_approval", "response", "result",
	"results", "retrieved_at", "return_code", "review_target",
	"revised_prompt", "role", "safety_identifier", "schema", "score",
	"score_threshold", "scroll_x", "scroll_y", "search_content_types",
	"search_context_size", "search_result_index", "self_harm",
	"sequence_number", "server_description", "server_label",
	"server_tool_use", "server_url", "service_tier", "severity", "sexual",
	"signature", "size", "skill_id", "skills", "source", "sources", "speed",
	"start_block_index", "start_char_index", "start_index", "start_line",
	"start_page_number", "status", "stderr", "stdout", "steer",
	"stop_details", "stop_reason", "stop_sequence", "strict", "summary",
	"summary_index", "svg", "svg_usage", "syntax", "system_fingerprint",
	"temperature", "text", "text_tokens", "text_weight", "thinking",
	"thinking_tokens", "timeout_ms", "timezone", "title", "token",
	"tool_call_id", "tool_calls", "tool_choice", "tool_id", "tool_name",
	"tool_names", "tool_references", "tool_usage", "tool_use_id", "tools",
	"toolset_name", "top_logprobs", "top_p", "total_lines", "total_tokens",
	"transcript", "truncation", "ttl", "ttl_12h_tokens", "ttl_30m_tokens",
	"tunnel_id", "type", "url", "url_citation", "usage", "user",
	"user_location", "value", "variables", "vector_store_ids", "verbosity",
	"version", "violence", "web_fetch_requests", "web_search",
	"web_search_requests", "working_directory", "x", "y",
}

// maxMemberLen is the length of the longest member name; memberIndex
// holds memberNames.
var maxMemberLen, memberIndex = indexMembers()

func indexMembers() (int, map[string]struct{}) {
	idx := make(map[string]struct{}, len(memberNames))
	longest := 0
	for _, n := range memberNames {
		idx[n] = struct{}{}
		longest = max(longest, len(n))
	}
	return longest, idx
}
