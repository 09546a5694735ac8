package providers

import "testing"

// routeCase is one request a pattern must take or refuse.
type routeCase struct {
	path, query string
	want        bool
}

func checkRoute(t *testing.T, r Route, cases []routeCase) {
	t.Helper()
	if err := r.compile(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := r.Match(c.path, c.query); got != c.want {
			t.Errorf("%s matched %q ? %q = %v, want %v", r.Pattern, c.path, c.query, got, c.want)
		}
	}
}

func TestRoutePathParameters(t *testing.T) {
	checkRoute(t, Route{Pattern: "/v1beta/models/{model}:streamGenerateContent"}, []routeCase{
		{"/v1beta/models/gemini-2.5-pro:streamGenerateContent", "", true},
		{"/v1beta/models/gemini_2.0.flash:streamGenerateContent", "", true},
		{"/v1beta/models/:streamGenerateContent", "", false},               // no model
		{"/v1beta/models/gemini-2.5-pro:streamgeneratecontent", "", false}, // other case
		{"/v1beta/models/gemini-2.5-pro:generateContent", "", false},       // other method
		{"/v1beta/models/a/b:streamGenerateContent", "", false},            // parameter spans a '/'
		{"/v1beta/models/gemini.:streamGenerateContent", "", false},        // trailing dot
		{"/v1beta/models/-x:streamGenerateContent", "", false},             // not an identifier
		{"/v1beta/models/x:y:streamGenerateContent", "", false},            // ':' inside the value
		{"/v1beta/models/gemini:streamGenerateContent/x", "", false},       // extra segment
		{"/v1beta/models/gemini:streamGenerateContent:streamGenerateContent", "", false},
		{"/v1/models/gemini:streamGenerateContent", "", false},
		{"v1beta/models/gemini:streamGenerateContent", "", false},
	})
	checkRoute(t, Route{Pattern: "/openai/deployments/{deployment}/chat/completions"}, []routeCase{
		{"/openai/deployments/gpt-4o_prod/chat/completions", "", true},
		{"/openai/deployments//chat/completions", "", false},
		{"/openai/deployments/chat/completions", "", false}, // missing parameter
		{"/openai/deployments/a/b/chat/completions", "", false},
		{"/openai/deployments/d/chat/completions/x", "", false},
		{"/openai/deployments/d/chat", "", false},
		{"/OpenAI/deployments/d/chat/completions", "", false},
	})
}

func TestRouteMatchLowerKeepsParameterRules(t *testing.T) {
	r := Route{Pattern: "/v1beta/models/{model}:streamGenerateContent"}
	if err := r.compile(); err != nil {
		t.Fatal(err)
	}
	if !r.MatchLower("/v1beta/models/gemini-pro:streamgeneratecontent", "") {
		t.Error("a lower-case path does not match the pattern in lower case")
	}
	if r.MatchLower("/v1beta/models/:streamgeneratecontent", "") {
		t.Error("a lower-case path without its parameter matched")
	}
}

func TestRouteQueryParameters(t *testing.T) {
	checkRoute(t, Route{
		Pattern: "/openai/deployments/{deployment}/chat/completions",
		Query:   []QueryParam{{Name: "api-version", Required: true}},
	}, []routeCase{
		{"/openai/deployments/d/chat/completions", "api-version=2024-10-21", true},
		{"/openai/deployments/d/chat/completions", "x=1&api-version=2024-10-21", true},
		{"/openai/deployments/d/chat/completions", "api%2Dversion=2024-10-21", true}, // the same name, escaped
		{"/openai/deployments/d/chat/completions", "", false},                        // required, missing
		{"/openai/deployments/d/chat/completions", "api-version=", false},            // empty
		{"/openai/deployments/d/chat/completions", "api-version", false},
		{"/openai/deployments/d/chat/completions", "API-Version=2024-10-21", false}, // another case
		{"/openai/deployments/d/chat/completions", "api-version=1&api-version=2", false},
		{"/openai/deployments/d/chat/completions", "api-version=1;x=2", false},
		{"/openai/deployments/d/chat/completions", "api-version=%zz", false},
	})
	checkRoute(t, Route{
		Pattern: "/v1beta/models/{model}:streamGenerateContent",
		Query:   []QueryParam{{Name: "alt", Values: []string{"sse"}}},
	}, []routeCase{
		{"/v1beta/models/g:streamGenerateContent", "", true}, // optional
		{"/v1beta/models/g:streamGenerateContent", "alt=sse", true},
		{"/v1beta/models/g:streamGenerateContent", "key=k&alt=sse", true},
		{"/v1beta/models/g:streamGenerateContent", "alt=json", false}, // a value the format does not read
		{"/v1beta/models/g:streamGenerateContent", "alt=SSE", false},
		{"/v1beta/models/g:streamGenerateContent", "alt=sse&alt=sse", false},
		{"/v1beta/models/g:streamGenerateContent", "ALT=sse", false},
		{"/v1beta/models/g:streamGenerateContent", "alt=", false},
	})
	// A route without Query reads any query as it always did.
	checkRoute(t, Route{Pattern: "/v1/chat/completions"}, []routeCase{
		{"/v1/chat/completions", "", true},
		{"/v1/chat/completions", "a=1;b&&%zz", true},
	})
}

func TestRoutePatternsThatCannotMatchOneWayAreRejected(t *testing.T) {
	for _, p := range []string{
		"v1/x", "/v1//x", "/v1/{}", "/v1/{a", "/v1/{a}{b}", "/v1/{a}b", "/v1/{a}.json", "/v1/x}", "/v1/{a}/",
	} {
		r := Route{Pattern: p}
		if err := r.compile(); err == nil {
			t.Errorf("pattern %q compiled", p)
		}
	}
	r := Route{Pattern: "/v1/x", Query: []QueryParam{{}}}
	if err := r.compile(); err == nil {
		t.Error("a query parameter without a name compiled")
	}
}

func TestFormatTableFindsPatternedRoutes(t *testing.T) {
	gem := &Format{Name: "g", Routes: []Route{
		{Pattern: "/v1beta/models/{model}:streamGenerateContent", Query: []QueryParam{{Name: "alt", Values: []string{"sse"}}}},
		{Pattern: "/v1beta/models/{model}:generateContent"},
	}}
	for i := range gem.Routes {
		if err := gem.Routes[i].compile(); err != nil {
			t.Fatal(err)
		}
	}
	tab := NewFormatTable([]*Format{ChatFormat, gem})
	if !tab.ReadsQuery() {
		t.Error("a table with a query route says it reads no query")
	}
	if NewFormatTable([]*Format{ChatFormat, MessagesFormat, ResponsesFormat}).ReadsQuery() {
		t.Error("formats with literal routes only read no query, the table says they do")
	}
	for _, c := range []struct {
		path, query string
		want        *Format
	}{
		{"/v1/chat/completions", "", ChatFormat},
		{"/v1beta/models/m:streamGenerateContent", "alt=sse", gem},
		{"/v1beta/models/m:generateContent", "", gem},
		{"/v1beta/models/m:streamGenerateContent", "alt=json", nil},
		{"/V1/Chat/Completions", "", nil},
		{"/v1/responses", "", nil},
	} {
		if got := tab.Match(c.path, c.query); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.path, c.query, got, c.want)
		}
	}
	if tab.MatchLower("/v1/chat/completions", "") != ChatFormat || tab.MatchLower("/v1beta/models/m:generatecontent", "") != gem {
		t.Error("MatchLower misses a route in lower case")
	}
}

// Every registered format is complete, and its routes are what the
// proxy, the configuration and the wiring read.
func TestRegisteredFormats(t *testing.T) {
	names := map[string]bool{}
	for _, f := range Formats() {
		if names[f.Name] {
			t.Errorf("format %s registered twice", f.Name)
		}
		names[f.Name] = true
		if FormatByName(f.Name) != f || !KnownProvider(f.Provider) {
			t.Errorf("format %s is not found by its name or provider", f.Name)
		}
		for i := range f.Routes {
			r := &f.Routes[i]
			if Registered().Match(r.Pattern, "") != f && len(r.Query) == 0 {
				t.Errorf("format %s: route %s is not found in the registry", f.Name, r.Pattern)
			}
		}
	}
	for _, want := range []string{"chat", "responses", "messages", "gemini"} {
		if !names[want] {
			t.Errorf("format %s is not registered", want)
		}
	}
	got, seen := Providers(), map[string]int{}
	for _, p := range got {
		seen[p]++
	}
	if len(got) < 3 || got[0] != "openai" || got[1] != "anthropic" || seen["gemini"] != 1 || len(seen) != len(got) {
		t.Errorf("Providers() = %v, want openai, anthropic first, gemini, each once", got)
	}
	if ProviderFormat(DefaultProvider) == nil {
		t.Errorf("the default provider %s serves no format", DefaultProvider)
	}
	if ProviderFormat("anthropic").Auth.Value("k") != "k" || ProviderFormat("openai").Auth.Value("k") != "Bearer k" {
		t.Error("a provider's credential is not carried as its API takes it")
	}
}

func TestFormatErrorShapes(t *testing.T) {
	if got := string(MessagesFormat.Error(403, "invalid_request_error", "route_not_guarded", "no")); got != string(MessagesErrorBody("permission_error", "route_not_guarded: no")) {
		t.Errorf("Anthropic shape: %s", got)
	}
	if got := string(MessagesFormat.Error(400, "invalid_request_error", "", "no")); got != string(MessagesErrorBody("invalid_request_error", "no")) {
		t.Errorf("Anthropic shape without a code: %s", got)
	}
	if got := string(ChatFormat.Error(400, "invalid_request_error", "c", "no")); got != string(ErrorBody("no", "invalid_request_error", "c")) {
		t.Errorf("OpenAI shape: %s", got)
	}
}
