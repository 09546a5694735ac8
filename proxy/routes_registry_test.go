package proxy

import (
	"bufio"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/providers"
)

// patternedFormats are formats whose routes carry path and query
// parameters, on paths no registered format reads: the router must read
// them exactly as it reads the routes of the registered formats.
func patternedFormats(t *testing.T) []*providers.Format {
	t.Helper()
	var out []*providers.Format
	for _, f := range []providers.Format{
		{
			Name: "gemini-like", Provider: "p1", Auth: providers.Auth{Header: "x-goog-api-key"},
			Error: providers.OpenAIErrorShape, MetricLabel: "gemini-like",
			Routes: []providers.Route{
				{Pattern: "/v9/models/{model}:predictStream", Query: []providers.QueryParam{{Name: "alt", Values: []string{"sse"}}}},
				{Pattern: "/v9/models/{model}:predict"},
			},
		},
		{
			Name: "azure-like", Provider: "p2", Auth: providers.Auth{Header: "api-key"},
			Error: providers.OpenAIErrorShape, MetricLabel: "azure-like",
			Routes: []providers.Route{
				{Pattern: "/openai/deployments/{deployment}/chat/completions", Query: []providers.QueryParam{{Name: "api-version", Required: true}}},
			},
		},
	} {
		p, err := providers.NewFormat(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// concrete is a request target for a route pattern: each parameter
// filled with value, and each required query parameter set.
func concrete(r providers.Route, value string) (path, query string) {
	var b strings.Builder
	rest := r.Pattern
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:open])
		b.WriteString(value)
		rest = rest[open+strings.IndexByte(rest[open:], '}')+1:]
	}
	var q []string
	for _, p := range r.Query {
		if p.Required {
			v := "2024-10-21"
			if len(p.Values) > 0 {
				v = p.Values[0]
			}
			q = append(q, p.Name+"="+v)
		}
	}
	return b.String(), strings.Join(q, "&")
}

// decideTarget runs one request line through r as the server reads it.
func decideTarget(t *testing.T, r *router, method, target string) routeDecision {
	t.Helper()
	var in fasthttp.Request
	raw := method + " " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	if err := in.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	return r.decide(string(in.Header.Method()), in.URI().Path(), &in.Header)
}

func withQuery(path, query string) string {
	if query == "" {
		return path
	}
	return path + "?" + query
}

// Each route of each registered format (and of formats with path and
// query parameters) is read with hooks configured, as the format it
// belongs to, and every near miss of it is refused: another case, an
// extra or a missing segment, an empty or missing path parameter, a
// missing required query parameter, another method.
func TestRouterReadsEveryRegisteredRouteAndRefusesNearMisses(t *testing.T) {
	all := append(append([]*providers.Format(nil), providers.Formats()...), patternedFormats(t)...)
	hooked := &router{formats: providers.NewFormatTable(all), hooksActive: true}
	open := &router{formats: providers.NewFormatTable(all)}
	for _, f := range all {
		for _, route := range f.Routes {
			path, query := concrete(route, "m-1.5_x")
			target := withQuery(path, query)
			for _, tgt := range []string{target, withQuery(path+"/", query)} {
				d := decideTarget(t, hooked, "POST", tgt)
				if d.kind != routeIntercepted || d.format != f || d.upPath != path {
					t.Errorf("%s: POST %s decided %+v, want read as %s with upstream path %s", f.Name, tgt, d, f.Name, path)
				}
			}
			if d := decideTarget(t, open, "POST", withQuery(strings.ToUpper(path[:3])+path[3:], query)); d.kind != routeIntercepted || d.format != f {
				t.Errorf("%s: without hooks, POST %s in another case is not read: %+v", f.Name, path, d)
			}
			if d := decideTarget(t, hooked, "GET", target); d.kind != routeRefused || d.reason != refusedMethod || d.allow != "POST" {
				t.Errorf("%s: GET %s decided %+v, want a 405", f.Name, target, d)
			}
			misses := []string{
				withQuery(strings.ToUpper(path), query),
				withQuery(path+"/x", query),
				withQuery("/x"+path, query),
				withQuery(path+".", query),
				withQuery(path[:strings.LastIndexByte(path, '/')], query),
			}
			if strings.Contains(route.Pattern, "{") {
				empty, _ := concrete(route, "")
				dotted, _ := concrete(route, "m.")
				split, _ := concrete(route, "a/b")
				misses = append(misses, withQuery(empty, query), withQuery(dotted, query), withQuery(split, query),
					withQuery(strings.Replace(route.Pattern, "{", "", 1), query))
				if seg := strings.Split(route.Pattern, "/"); len(seg) > 2 {
					// The segment of the parameter left out.
					var kept []string
					for _, s := range seg {
						if !strings.Contains(s, "{") {
							kept = append(kept, s)
						}
					}
					misses = append(misses, withQuery(strings.Join(kept, "/"), query))
				}
			}
			for _, q := range route.Query {
				if q.Required {
					misses = append(misses, path, path+"?"+strings.ToUpper(q.Name)+"=1")
				}
				if len(q.Values) > 0 {
					misses = append(misses, withQuery(path, q.Name+"=other"), withQuery(path, q.Name+"="+q.Values[0]+"&"+q.Name+"="+q.Values[0]))
				}
			}
			for _, miss := range misses {
				if d := decideTarget(t, hooked, "POST", miss); d.kind != routeRefused {
					t.Errorf("%s: near miss POST %s decided %+v, want refused", f.Name, miss, d)
				}
			}
		}
	}
}

// A format registered but without an interceptor is not read: with hooks
// its routes are refused.
func TestRouterRefusesFormatsWithoutInterceptor(t *testing.T) {
	r := &router{formats: providers.NewFormatTable([]*providers.Format{providers.ChatFormat}), hooksActive: true}
	for _, f := range providers.Formats() {
		for _, route := range f.Routes {
			path, query := concrete(route, "m")
			d := decideTarget(t, r, "POST", withQuery(path, query))
			if f == providers.ChatFormat {
				if d.kind != routeIntercepted {
					t.Errorf("POST %s not read: %+v", path, d)
				}
			} else if d.kind != routeRefused {
				t.Errorf("POST %s of %s, which has no interceptor, decided %+v", path, f.Name, d)
			}
		}
	}
}
