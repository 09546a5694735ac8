package config

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hookgate/hookgate/hooks"
)

// The largest files a tenant's entry may name: a script (the script
// handler's own limit) and an inject_context file (the built-in's).
const (
	tenantScriptMaxBytes  = 1 << 20
	tenantContextMaxBytes = 256 << 10
)

// inlineTenantFiles reads every file a tenant's entry names, relative to
// and confined to dir (the tenant file's folder), through the one helper
// hooks.ReadConfinedFile, and puts the content in the entry in place of
// the path: a script's `file:` becomes its `source:`, inject_context's
// `with.file` its `with.text`. No handler then opens a path a tenant
// wrote. An entry that sets both forms is left as it is, for its handler
// to refuse.
func inlineTenantFiles(s *hooks.Spec, i int, dir string, ps *problems) {
	h := &s.Handler
	if h.Type == "script" && h.File != "" && h.Source == "" {
		b, err := hooks.ReadConfinedFile(dir, h.File, tenantScriptMaxBytes)
		if err != nil {
			ps.add(s.Line, fmt.Sprintf("[%d].handler.file", i), "%v", err)
			return
		}
		h.Source, h.File = string(b), ""
	}
	if h.Type == "builtin" && h.Name == "inject_context" {
		v, set := h.With["file"]
		if !set {
			return
		}
		name, isString := v.(string)
		if !isString {
			ps.add(s.Line, fmt.Sprintf("[%d].handler.with.file", i), "want a path")
			return
		}
		if _, both := h.With["text"]; both || name == "" {
			return
		}
		b, err := hooks.ReadConfinedFile(dir, name, tenantContextMaxBytes)
		if err != nil {
			ps.add(s.Line, fmt.Sprintf("[%d].handler.with.file", i), "%v", err)
			return
		}
		if strings.TrimSpace(string(b)) == "" {
			ps.add(s.Line, fmt.Sprintf("[%d].handler.with.file", i), "%s is empty", name)
			return
		}
		with := maps.Clone(h.With)
		delete(with, "file")
		with["text"] = string(b)
		h.With = with
	}
}
