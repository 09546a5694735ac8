package providers

import (
	"strings"
	"sync"
)

// FormatTable finds the format a request is read as among a set of
// formats: literal routes by a map lookup, patterned ones in turn. It is
// immutable once built and safe for concurrent use.
type FormatTable struct {
	exact, lower map[string]*Format
	patterned    []patternedRoute
	readsQuery   bool
}

type patternedRoute struct {
	f *Format
	r *Route
}

// NewFormatTable builds the table of formats.
func NewFormatTable(formats []*Format) *FormatTable {
	t := &FormatTable{exact: map[string]*Format{}, lower: map[string]*Format{}}
	for _, f := range formats {
		for i := range f.Routes {
			r := &f.Routes[i]
			if p, ok := r.Literal(); ok {
				t.exact[p] = f
				t.lower[strings.ToLower(p)] = f
				continue
			}
			t.patterned = append(t.patterned, patternedRoute{f: f, r: r})
			t.readsQuery = t.readsQuery || len(r.Query) > 0
		}
	}
	return t
}

// Match is the format whose route path (decoded, normalised, without a
// trailing slash) and raw query are, spelled exactly; nil if none.
func (t *FormatTable) Match(path, rawQuery string) *Format {
	if t == nil {
		return nil
	}
	if f := t.exact[path]; f != nil {
		return f
	}
	for _, p := range t.patterned {
		if p.r.Match(path, rawQuery) {
			return p.f
		}
	}
	return nil
}

// MatchLower is Match for a path in lower case, compared with the routes
// without regard to case.
func (t *FormatTable) MatchLower(lowerPath, rawQuery string) *Format {
	if t == nil {
		return nil
	}
	if f := t.lower[lowerPath]; f != nil {
		return f
	}
	for _, p := range t.patterned {
		if p.r.MatchLower(lowerPath, rawQuery) {
			return p.f
		}
	}
	return nil
}

// ReadsQuery reports whether some route of the table reads the query: a
// caller may pass "" for the query when none does.
func (t *FormatTable) ReadsQuery() bool { return t != nil && t.readsQuery }

// LiteralRoutes are the table's routes without parameters or query, in
// lower case.
func (t *FormatTable) LiteralRoutes() []string {
	if t == nil {
		return nil
	}
	out := make([]string, 0, len(t.lower))
	for p := range t.lower {
		out = append(out, p)
	}
	return out
}

// Registered is the table of every registered format, built on first use
// (after every format_*.go has registered).
func Registered() *FormatTable { return registered() }

var registered = sync.OnceValue(func() *FormatTable { return NewFormatTable(formats) })
