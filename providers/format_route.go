package providers

import (
	"fmt"
	"net/url"
	"strings"
)

// Route is one request a format is read on: a path pattern and the query
// parameters the format gives meaning to.
//
// Pattern is a path of '/'-separated segments, each a literal or a literal
// around one parameter in braces: "/v1/chat/completions",
// "/v1beta/models/{model}:streamGenerateContent",
// "/openai/deployments/{deployment}/chat/completions". A parameter stands
// for one identifier (ParamValue): it never spans a '/', and the literal
// after it in its segment must begin with a byte no identifier holds, so
// that a path matches a pattern in one way only.
//
// Query names parameters that change how the request reads (api-version,
// alt=sse). A route without Query takes any query unread; a route with it
// refuses a query it cannot read in one way (see matchQuery).
type Route struct {
	Pattern string
	Query   []QueryParam

	exact, lower []segment // compiled Pattern, as spelled and in lower case
}

// QueryParam is a query parameter a route reads.
type QueryParam struct {
	// Name is spelled exactly as the API spells it.
	Name string
	// Required: a request without it (or with it empty) is not this route.
	Required bool
	// Values are the values the format reads; empty takes any non-empty
	// value. A request with another value is not this route.
	Values []string
}

// segment is one compiled path segment: prefix, then a parameter when
// param is set, then suffix.
type segment struct {
	prefix, suffix string
	param          bool
}

// compile parses Pattern (at registration).
func (r *Route) compile() error {
	if !strings.HasPrefix(r.Pattern, "/") {
		return fmt.Errorf("route %q does not start with /", r.Pattern)
	}
	for _, q := range r.Query {
		if q.Name == "" {
			return fmt.Errorf("route %q: a query parameter without a name", r.Pattern)
		}
	}
	r.exact, r.lower = nil, nil
	for seg := range strings.SplitSeq(r.Pattern[1:], "/") {
		s, err := compileSegment(seg)
		if err != nil {
			return fmt.Errorf("route %q: %w", r.Pattern, err)
		}
		r.exact = append(r.exact, s)
		r.lower = append(r.lower, segment{prefix: strings.ToLower(s.prefix), suffix: strings.ToLower(s.suffix), param: s.param})
	}
	return nil
}

func compileSegment(seg string) (segment, error) {
	open := strings.IndexByte(seg, '{')
	if open < 0 {
		if strings.ContainsAny(seg, "}") || seg == "" {
			return segment{}, fmt.Errorf("bad segment %q", seg)
		}
		return segment{prefix: seg}, nil
	}
	end := strings.IndexByte(seg[open:], '}')
	if end < 0 {
		return segment{}, fmt.Errorf("unclosed parameter in %q", seg)
	}
	end += open
	name, suffix := seg[open+1:end], seg[end+1:]
	if name == "" || strings.ContainsAny(name, "{}") || strings.ContainsAny(suffix, "{}") || strings.ContainsAny(seg[:open], "}") {
		return segment{}, fmt.Errorf("bad parameter in %q", seg)
	}
	if suffix != "" && paramByte[suffix[0]] {
		return segment{}, fmt.Errorf("the literal after {%s} begins with an identifier byte: the match would be ambiguous", name)
	}
	return segment{prefix: seg[:open], suffix: suffix, param: true}, nil
}

// Literal is the route's path when it has no parameter and no query: such
// a route is matched by a map lookup.
func (r *Route) Literal() (string, bool) {
	if len(r.Query) > 0 || strings.IndexByte(r.Pattern, '{') >= 0 {
		return "", false
	}
	return r.Pattern, true
}

// Match reports whether path (decoded and normalised, no trailing slash)
// and the raw query are this route, the path spelled exactly as the
// pattern spells it.
func (r *Route) Match(path, rawQuery string) bool {
	return matchSegments(r.exact, path) && r.matchQuery(rawQuery)
}

// MatchLower is Match for a path already in lower case, compared with
// the pattern in lower case (the parameters' values keep any case).
func (r *Route) MatchLower(lowerPath, rawQuery string) bool {
	return matchSegments(r.lower, lowerPath) && r.matchQuery(rawQuery)
}

func matchSegments(segs []segment, path string) bool {
	// A route not compiled (not from NewFormat) matches nothing.
	if len(segs) == 0 || path == "" || path[0] != '/' {
		return false
	}
	rest := path[1:]
	for i, s := range segs {
		seg, tail, more := strings.Cut(rest, "/")
		if more != (i < len(segs)-1) {
			return false
		}
		if !s.param {
			if seg != s.prefix {
				return false
			}
		} else {
			v, ok := strings.CutPrefix(seg, s.prefix)
			if !ok {
				return false
			}
			if v, ok = strings.CutSuffix(v, s.suffix); !ok || !ParamValue(v) {
				return false
			}
		}
		rest = tail
	}
	return true
}

// paramByte are the bytes of a path parameter's value: letters, digits,
// '-', '_' and '.'.
var paramByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	return t
}()

// ParamValue reports whether v can stand for a path parameter: it begins
// with a letter or digit, does not end with a dot (some servers drop
// trailing dots), and holds only letters, digits, '-', '_' and '.' (model
// names "gemini-2.5-pro", deployment names "gpt-4o_prod").
func ParamValue(v string) bool {
	if v == "" || v[len(v)-1] == '.' {
		return false
	}
	if c := v[0]; c == '-' || c == '_' || c == '.' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !paramByte[v[i]] {
			return false
		}
	}
	return true
}

// matchQuery reports whether a raw query reads as this route in one way
// only. Parameters the route does not name are not looked at. A named
// parameter must appear at most once, spelled exactly (another case of its
// name is a second reading some server may take), with a value the route
// reads; a required one must appear. A query with a ';' (a separator to
// some servers) or an escape that does not decode is refused whole: which
// parameters it holds depends on who reads it.
func (r *Route) matchQuery(raw string) bool {
	if len(r.Query) == 0 {
		return true
	}
	var seen uint64 // bit i: r.Query[i] was present (routes name few parameters)
	if len(r.Query) > 64 {
		return false
	}
	if strings.IndexByte(raw, ';') >= 0 {
		return false
	}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			return false
		}
		for i, q := range r.Query {
			if !strings.EqualFold(name, q.Name) {
				continue
			}
			if name != q.Name || seen&(1<<i) != 0 {
				return false
			}
			seen |= 1 << i
			value, err := url.QueryUnescape(rawValue)
			if err != nil || value == "" {
				return false
			}
			if len(q.Values) > 0 && !containsString(q.Values, value) {
				return false
			}
		}
	}
	for i, q := range r.Query {
		if q.Required && seen&(1<<i) == 0 {
			return false
		}
	}
	return true
}
