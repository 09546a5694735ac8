package hooks

import "github.com/hookgate/hookgate/hooks/toolclass"

// noToolView is tool for an event without a classed tool: every key
// present, empty, so that tool.class == 'shell' needs no has().
var noToolView = viewMap(&toolclass.View{})

// toolMap is the view as CEL and scripts see it: every key present.
func toolMap(v *toolclass.View) map[string]any {
	if v == nil {
		return noToolView
	}
	return viewMap(v)
}

func viewMap(v *toolclass.View) map[string]any {
	return map[string]any{
		"class":       string(v.Class),
		"command":     v.Command,
		"paths":       anyStrings(v.Paths),
		"url":         v.URL,
		"urls":        anyStrings(v.URLs),
		"interactive": v.Interactive,
		"terminal":    v.Terminal,
		"opaque":      v.Opaque,
		"truncated":   v.Truncated,
	}
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
