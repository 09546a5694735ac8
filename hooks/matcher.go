package hooks

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hookgate/hookgate/hooks/toolclass"
)

// maxMatchCache bounds the tool names remembered per event. Tool names come
// from the model's output, so a hostile or confused model could invent
// unboundedly many; past the bound, names are matched without caching.
const maxMatchCache = 4096

// chain is the hooks of one event in dispatch order (priority, then
// declaration), with the matcher's verdicts memoised per tool name.
type chain struct {
	hooks []*hook
	// anyMatcher is false when no hook has a matcher: every tool gets hooks.
	anyMatcher bool

	// cache maps a tool name to the hooks whose matcher accepts it. It is
	// copied on write, so that a lookup is one atomic load and one map
	// read: no lock, no allocation.
	cache atomic.Pointer[map[string][]*hook]
	mu    sync.Mutex // serialises writers of cache
}

// matching returns the hooks whose matcher accepts toolName, in order. The
// returned slice is shared and must not be modified.
func (c *chain) matching(toolName string) []*hook {
	if !c.anyMatcher {
		return c.hooks
	}
	if m := c.cache.Load(); m != nil {
		if hs, ok := (*m)[toolName]; ok {
			return hs
		}
	}
	return c.remember(toolName)
}

func (c *chain) remember(toolName string) []*hook {
	var hs []*hook
	class, classed := toolclass.ClassOf(toolName)
	mates := toolclass.CaseMates(toolName)
	for _, h := range c.hooks {
		if matches(h, toolName, class, classed, mates) {
			hs = append(hs, h)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cache.Load()
	if old != nil && len(*old) >= maxMatchCache {
		return hs
	}
	next := make(map[string][]*hook, 1+lenOf(old))
	if old != nil {
		maps.Copy(next, *old)
	}
	next[toolName] = hs
	c.cache.Store(&next)
	return hs
}

// matches reports whether h applies to the tool: no matcher and no
// classes, or its matcher accepts the name, or one of its classes is the
// tool's. A matcher that accepts a class-mate differing only in case
// (Bash for bash) accepts the tool too: they are one tool of different
// agents, judged alike, never refused as look-alikes of each other.
func matches(h *hook, toolName string, class toolclass.Class, classed bool, mates []string) bool {
	switch {
	case h.matcher == nil && len(h.classes) == 0,
		h.matcher != nil && h.matcher.MatchString(toolName),
		classed && slices.Contains(h.classes, class):
		return true
	}
	if h.matcher != nil {
		for _, m := range mates {
			if h.matcher.MatchString(m) {
				return true
			}
		}
	}
	return false
}

func lenOf(m *map[string][]*hook) int {
	if m == nil {
		return 0
	}
	return len(*m)
}
