package proxy

import (
	"strings"
)

// listedRoute is a route that produces no model output to judge, which
// hookgate forwards unread while hooks are configured, with the methods
// it takes. The list is closed: anything else needs passthrough_routes.
type listedRoute struct {
	// path is the route's exact path, or with param the prefix before
	// one path segment that names an object.
	path string
	// param: the route is path followed by one identifier segment
	// (plainID).
	param   bool
	methods []string
}

// listedRoutes are OpenAI's and Anthropic's non-generation routes that
// agents call beside generation: model lists, embeddings, moderation,
// token counting, speech to text, and file uploads and metadata. A file's
// content (/v1/files/{id}/content) is not listed: it can hold model output
// (batch results, code execution files).
var listedRoutes = []listedRoute{
	{path: "/v1/models", methods: []string{"GET", "HEAD"}},
	{path: "/v1/models/", param: true, methods: []string{"GET", "HEAD"}},
	{path: "/v1/embeddings", methods: []string{"POST"}},
	{path: "/v1/moderations", methods: []string{"POST"}},
	{path: "/v1/messages/count_tokens", methods: []string{"POST"}},
	{path: "/v1/audio/transcriptions", methods: []string{"POST"}},
	{path: "/v1/audio/translations", methods: []string{"POST"}},
	{path: "/v1/files", methods: []string{"GET", "HEAD", "POST"}},
	{path: "/v1/files/", param: true, methods: []string{"GET", "HEAD", "DELETE"}},
}

// matchListed finds the listed route of an exact path.
func matchListed(path string) (listedRoute, bool) {
	for _, l := range listedRoutes {
		if !l.param {
			if path == l.path {
				return l, true
			}
			continue
		}
		if id, ok := strings.CutPrefix(path, l.path); ok && plainID(id) {
			return l, true
		}
	}
	return listedRoute{}, false
}

// takes reports whether the route takes method, spelled exactly.
func (l listedRoute) takes(method string) bool {
	for _, m := range l.methods {
		if m == method {
			return true
		}
	}
	return false
}

// allow is the route's Allow header.
func (l listedRoute) allow() string { return strings.Join(l.methods, ", ") }

// plainID reports whether s is one identifier segment: it begins with a
// letter or digit, does not end with a dot (some servers drop trailing
// dots), holds no '/', and does not end in a Gemini method
// (":generateContent" and the like: a model path and a generation in one
// segment).
func plainID(s string) bool {
	if s == "" || strings.IndexByte(s, '/') >= 0 || s[len(s)-1] == '.' {
		return false
	}
	if c := s[0]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
		return false
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 && geminiMethod(s[i+1:]) {
		return false
	}
	return true
}

// geminiMethods are the methods Google's generative APIs call on a model
// path, in lower case.
var geminiMethods = map[string]bool{
	"generatecontent": true, "streamgeneratecontent": true, "batchgeneratecontent": true,
	"generateanswer": true, "generatetext": true, "generatemessage": true,
	"predict": true, "predictlongrunning": true,
}

func geminiMethod(s string) bool { return geminiMethods[strings.ToLower(s)] }
