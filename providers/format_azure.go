package providers

// Azure OpenAI serves OpenAI's chat completions and Responses wire formats
// under its own routes, from a resource endpoint
// (https://<resource>.openai.azure.com, an upstream's base_url), with its
// own credential header. Bodies, streams and errors are OpenAI's, so the
// formats are read as OpenAI's (ReadAs); only the descriptor is Azure's.
//
// Two route families exist: the versioned routes, which need an
// api-version in the query (chat completions name a deployment in the
// path; the Responses API takes the deployment as the body's model, at
// /openai/responses, where Azure's SDKs send it, or under a deployment),
// and the v1 routes, which name the model in the body like OpenAI's and
// take an api-version optionally. All go upstream as the client sent
// them, deployment and query included.

// azureAPIVersion is the query parameter that picks the Azure OpenAI API
// version. Declared on every route, so that a query naming it twice or in
// another case (which two servers may read as two versions) is not read.
const azureAPIVersion = "api-version"

// azureAuth is Azure OpenAI's key header, carrying the key without a
// prefix. An Entra ID token travels in Authorization instead: the proxy
// strips both when it swaps in an upstream's key.
var azureAuth = Auth{Header: "api-key"}

// azureRefusalScope holds every Azure OpenAI route: a refused request
// under /openai is answered in OpenAI's error shape, which Azure's SDKs
// parse.
var azureRefusalScope = []string{"/openai"}

// AzureChatFormat is OpenAI's chat completions API on Azure OpenAI. The
// metric label leaves the deployment out: deployment names are the
// client's choice, and a label per name would be unbounded.
var AzureChatFormat = register(Format{
	Name:     "azure_chat",
	ReadAs:   ChatFormat.Name,
	Provider: "azure",
	Routes: []Route{
		{Pattern: "/openai/deployments/{deployment}/chat/completions", Query: []QueryParam{{Name: azureAPIVersion, Required: true}}},
		{Pattern: "/openai/v1/chat/completions", Query: []QueryParam{{Name: azureAPIVersion}}},
	},
	Auth:         azureAuth,
	Error:        OpenAIErrorShape,
	MetricLabel:  "/openai/chat/completions",
	RefusalScope: azureRefusalScope,
})

// AzureResponsesFormat is OpenAI's Responses API on Azure OpenAI.
var AzureResponsesFormat = register(Format{
	Name:     "azure_responses",
	ReadAs:   ResponsesFormat.Name,
	Provider: "azure",
	Routes: []Route{
		{Pattern: "/openai/responses", Query: []QueryParam{{Name: azureAPIVersion, Required: true}}},
		{Pattern: "/openai/deployments/{deployment}/responses", Query: []QueryParam{{Name: azureAPIVersion, Required: true}}},
		{Pattern: "/openai/v1/responses", Query: []QueryParam{{Name: azureAPIVersion}}},
	},
	Auth:         azureAuth,
	Error:        OpenAIErrorShape,
	MetricLabel:  "/openai/responses",
	RefusalScope: azureRefusalScope,
})
