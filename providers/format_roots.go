package providers

import "strings"

// ProviderRouteRoots are the first path segments of the routes of
// provider's formats, each once ("/v1" for OpenAI's, "/openai" for Azure
// OpenAI's). A request goes upstream to base_url + its path, so an
// upstream's base_url ending in one of them would double it; the
// configuration refuses such a base_url.
func ProviderRouteRoots(provider string) []string {
	var out []string
	for _, f := range formats {
		if f.Provider != provider {
			continue
		}
		for _, r := range f.Routes {
			root, _, _ := strings.Cut(r.Pattern[1:], "/")
			if root = "/" + root; !strings.ContainsAny(root, "{}") && !containsString(out, root) {
				out = append(out, root)
			}
		}
	}
	return out
}

// ChatCompletionsBase is the path under which provider serves OpenAI's
// chat completions at a literal route ("/v1" for OpenAI, "/openai/v1" for
// Azure OpenAI): an OpenAI client given base_url + this path reaches the
// provider's chat completions. ok is false when no format of provider
// reads chat completions at a literal route.
func ChatCompletionsBase(provider string) (base string, ok bool) {
	for _, f := range formats {
		if f.Provider != provider || f.ReadAs != ChatFormat.Name {
			continue
		}
		for _, r := range f.Routes {
			if strings.IndexByte(r.Pattern, '{') < 0 {
				if base, ok := strings.CutSuffix(r.Pattern, "/chat/completions"); ok {
					return base, true
				}
			}
		}
	}
	return "", false
}
