package providers

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

// checkGeminiCanonical is the Gemini canonical-form gate (memberGate).
func checkGeminiCanonical(raw []byte) error { return geminiGate.check(raw) }

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

// geminiGate is the gate over geminiMemberNames and geminiFreeForm.
var geminiGate = newMemberGate("Gemini", geminiMemberNames[:], geminiFreeForm)
