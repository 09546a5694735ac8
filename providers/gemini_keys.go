package providers

import (
	"fmt"
)

// Why Gemini key spellings are refused: google.golang.org/genai copies a
// candidate's content wholesale and decodes it with encoding/json, which
// matches member names without regard to case ("FunctionCall" and
// "functioncall" are functionCall to it) and keeps the last of keys that
// match. Readers built on protobuf JSON accept a field's proto name as
// well ("function_call" beside "functionCall"). hookgate reads exact
// member names, so a frame or body is read only when every reader agrees:
// no object repeats a key (ErrDuplicateKey), and no key that folds (case,
// Unicode simple folding, '_' removed, escapes decoded) to a member name
// of the Gemini API is spelt other than exactly (ErrKeySpelling).

// checkGeminiCanonical is the Gemini canonical-form gate: valid JSON
// (ErrInvalidJSON), no repeated key at any depth (ErrDuplicateKey), no
// variant spelling of a Gemini member outside free-form members
// (ErrKeySpelling).
func checkGeminiCanonical(raw []byte) error {
	if err := validateUnique(raw, nil); err != nil {
		return err
	}
	return geminiSpelling(raw, 0)
}

// geminiSpelling walks a valid value and fails at the first key that is a
// variant spelling of a Gemini member. Values of free-form members are
// not looked into: their keys are a tool's or a schema's own.
func geminiSpelling(raw []byte, depth int) error {
	if depth > maxJSONDepth {
		return errTooDeep
	}
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return nil
	}
	switch raw[i] {
	case '{':
		it, _ := iterObject(raw)
		for key, val, ok := it.next(); ok; key, val, ok = it.next() {
			if name, ok := geminiVariant(key); ok {
				return fmt.Errorf("key %q spells Gemini member %q: %w", key, name, ErrKeySpelling)
			}
			if _, free := geminiFreeForm[string(key)]; free {
				continue
			}
			if err := geminiSpelling(val, depth+1); err != nil {
				return err
			}
		}
	case '[':
		it, _ := iterArray(raw)
		for val, ok := it.next(); ok; val, ok = it.next() {
			if err := geminiSpelling(val, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// geminiVariant reports whether k, a raw key between its quotes, folds to
// a Gemini member name without being one exactly; it returns the member.
func geminiVariant(k []byte) (string, bool) {
	if _, exact := geminiMemberSet[string(k)]; exact {
		return "", false
	}
	if len(k) > 6*geminiMaxMemberLen+32 {
		return "", false // longer than any member, even spelt in \u escapes and '_'s
	}
	var ftmp [256]byte
	folded, ok := foldMemberName(ftmp[:0], k, true, geminiMaxMemberLen)
	if !ok {
		return "", false
	}
	name, ok := geminiFolded[string(folded)]
	return name, ok
}

// geminiFreeForm are members whose values hold keys no reader matches to
// a field: a call's args, a function response, schemas, metadata maps.
var geminiFreeForm = map[string]struct{}{
	"args": {}, "response": {}, "partMetadata": {}, "parameters": {},
	"parametersJsonSchema": {}, "responseJsonSchema": {}, "responseSchema": {},
	"schema": {}, "properties": {}, "headers": {}, "labels": {},
	"customMetadata": {}, "details": {}, "example": {}, "default": {},
	"structuredContent": {},
}

// geminiMemberNames are the JSON names of the fields of genai's request
// and response types reachable from GenerateContentResponse, Content,
// Tool, GenerationConfig, ToolConfig, SafetySetting and APIError, and the
// members of a generateContent request body.
// TestGeminiMemberNamesCoverGenai keeps the list complete.
var geminiMemberNames = [...]string{
	"accessToken", "adaptationPhrases", "allowedFunctionNames", "alpha",
	"anyOf", "apiAuth", "apiKey", "apiKeyConfig", "apiKeySecret",
	"apiKeySecretVersion", "apiKeyString", "apiSpec", "args", "aspectRatio",
	"audio", "audioTimestamp", "audioTranscription", "audioTranscriptionConfig",
	"authConfig", "authType", "authorAttribution", "autoMode", "avgLogprobs",
	"behavior", "bitRate", "blockReason", "blockReasonMessage", "blocked",
	"blockingConfidence", "body", "boolValue", "cacheTokensDetails",
	"cachedContent", "cachedContentTokenCount", "candidateCount", "candidates",
	"candidatesTokenCount", "candidatesTokensDetails", "category",
	"chosenCandidates", "chunkId", "citationMetadata", "citations", "code",
	"codeExecution", "codeExecutionResult", "computerUse", "confidenceScores",
	"consentAudio", "content", "contents", "continuationToken", "createTime",
	"credentialSecret", "customConfigs", "customMetadata", "customVocabulary",
	"data", "dataStore", "dataStoreSpecs", "datastore", "default", "delivery",
	"description", "details", "diarization", "disableAttribution",
	"disabledSafetyPolicies", "displayName", "distanceMeters", "documentName",
	"domain", "duration", "dynamicRetrievalConfig", "dynamicThreshold",
	"echoTargetLanguage", "elasticSearchParams", "enableAffectiveDialog",
	"enableDataRetention", "enableEnhancedCivicAnswers",
	"enablePromptInjectionDetection", "enableWidget", "enableZeroDataRetention",
	"encodedPolyline", "endIndex", "endOffset", "endTime", "endpoint", "engine",
	"enterpriseWebSearch", "enum", "environment", "error", "exaAiSearch",
	"example", "excludeDomains", "excludedPredefinedFunctions",
	"executableCode", "externalApi", "featureSelectionPreference", "fileData",
	"fileId", "fileSearch", "fileSearchStore", "fileSearchStoreNames",
	"fileUri", "filter", "finishMessage", "finishReason", "finished",
	"firstPage", "flagContentUri", "format", "fps", "frequencyPenalty",
	"functionCall", "functionCallingConfig", "functionDeclarations",
	"functionResponse", "gcsUri", "generationConfig", "googleMaps",
	"googleMapsUri", "googleMapsWidgetContextToken", "googleSearch",
	"googleSearchDynamicRetrievalScore", "googleSearchRetrieval",
	"googleServiceAccountConfig", "groundingChunkIndices", "groundingChunks",
	"groundingMetadata", "groundingSupports", "groundingTypes", "headers",
	"httpBasicAuthConfig", "httpElementLocation", "hybridSearch", "id",
	"idToken", "image", "imageSearch", "imageSearchQueries", "imageSize",
	"imageUri", "includeServerSideToolInvocations", "includeThoughts", "index",
	"inlineData", "items", "jsonPath", "key", "labels", "language",
	"languageAuto", "languageCode", "languageCodes", "languageHints",
	"lastPage", "latLng", "latitude", "level", "license", "llmRanker",
	"logProbability", "logProbabilitySum", "logprobs", "logprobsResult",
	"longitude", "manualMode", "maps", "maxItems", "maxLength",
	"maxOutputTokens", "maxProperties", "maxResults", "maximum", "mcpServers",
	"mediaId", "mediaProcessing", "mediaResolution", "message",
	"metadataFilter", "method", "mimeType", "minItems", "minLength",
	"minProperties", "minimum", "modality", "mode", "model", "modelName",
	"modelRoutingPreference", "modelSelectionConfig", "modelStage",
	"modelStatus", "modelVersion", "multiSpeakerVoiceConfig", "name",
	"nullValue", "nullable", "numHits", "numTokens", "numberValue",
	"numericValue", "oauthConfig", "oidcConfig", "outcome", "output",
	"overwrittenThreshold", "pageNumber", "pageSpan", "parallelAiSearch",
	"parameters", "parametersJsonSchema", "partIndex", "partMetadata",
	"partialArgs", "parts", "pattern", "photoUri", "placeAnswerSources",
	"placeId", "places", "prebuiltVoiceConfig", "presencePenalty",
	"probability", "probabilityScore", "promptFeedback", "promptTokenCount",
	"promptTokensDetails", "properties", "propertyOrdering", "publicationDate",
	"ragChunk", "ragCorpora", "ragCorpus", "ragFileIds", "ragResources",
	"ragRetrievalConfig", "rankService", "ranking",
	"relativePublishTimeDescription", "renderedContent", "renderedParts",
	"replicatedVoiceConfig", "required", "resolution", "response",
	"responseFormat", "responseId", "responseJsonSchema", "responseLogprobs",
	"responseMimeType", "responseModalities", "responseSchema", "retirementTime",
	"retrieval", "retrievalConfig", "retrievalMetadata", "retrievalQueries",
	"retrievedContext", "retrievedUrl", "review", "reviewId", "reviewSnippet",
	"reviewSnippets", "role", "route", "routing", "routingConfig",
	"safetyRatings", "safetySettings", "sampleRate", "scheduling", "schema",
	"sdkBlob", "sdkHttpResponse", "searchEntryPoint", "searchTemplate",
	"searchTypes", "seed", "segment", "serviceAccount", "severity",
	"severityScore", "signature", "similarityTopK", "simpleSearchParams",
	"sourceFlaggingUris", "sourceId", "sourceUri", "speaker", "speakerLabel",
	"speakerVoiceConfigs", "speechConfig", "speechMetadata", "sseReadTimeout",
	"startIndex", "startOffset", "startTime", "status", "stopSequences",
	"storeContext", "streamFunctionCallArguments", "streamableHttpTransport",
	"stringListValue", "stringValue", "style", "systemInstruction",
	"targetLanguageCode", "temperature", "terminateOnClose", "text",
	"thinkingBudget", "thinkingConfig", "thinkingLevel", "thought",
	"thoughtSignature", "thoughtsTokenCount", "threshold", "timeRangeFilter",
	"timeout", "title", "token", "tokenCount", "tokenId", "toolCall",
	"toolConfig", "toolResponse", "toolType", "toolUsePromptTokenCount",
	"toolUsePromptTokensDetails", "tools", "topCandidates", "topK", "topP",
	"totalTokenCount", "trafficType", "translationConfig", "type", "uri",
	"url", "urlContext", "urlContextMetadata", "urlMetadata",
	"urlRetrievalStatus", "usageMetadata", "values", "vectorDistanceThreshold",
	"vectorSimilarityThreshold", "vertexAiSearch", "vertexRagStore", "video",
	"videoMetadata", "voice", "voiceConfig", "voiceConsentSignature",
	"voiceName", "voiceSampleAudio", "web", "webSearch", "webSearchQueries",
	"willContinue", "word", "wordTimestamp", "words",
}

// geminiMemberSet holds geminiMemberNames; geminiFolded maps each name's
// folded form (lower case) to the name; geminiMaxMemberLen is the length
// of the longest.
var geminiMemberSet, geminiFolded, geminiMaxMemberLen = indexGeminiMembers()

func indexGeminiMembers() (map[string]struct{}, map[string]string, int) {
	set := make(map[string]struct{}, len(geminiMemberNames))
	folded := make(map[string]string, len(geminiMemberNames))
	longest := 0
	for _, n := range geminiMemberNames {
		set[n] = struct{}{}
		f := make([]byte, 0, len(n))
		for i := 0; i < len(n); i++ {
			c := n[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			f = append(f, c)
		}
		folded[string(f)] = n
		longest = max(longest, len(n))
	}
	return set, folded, longest
}
