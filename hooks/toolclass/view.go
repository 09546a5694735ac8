package toolclass

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// View is the normalised view of one tool call, beside its raw input. Hooks
// see it as `tool` (JSON, CEL and scripts): tool.class, tool.command,
// tool.paths, tool.url.
type View struct {
	// Class is the tool's class.
	Class Class `json:"class"`
	// Command is, for a shell tool, the command line it runs: the string
	// as given, argv joined (a shell's -c script read as the script), or
	// for terminal input the line(s) it completes and the line still being
	// typed, joined by newlines.
	Command string `json:"command,omitempty"`
	// Paths are the files a file tool names: every path a patch adds,
	// updates, moves to or deletes. A shell call that applies a patch
	// (Codex's `apply_patch <patch>`) has the patch's paths too.
	Paths []string `json:"paths,omitempty"`
	// URL is the first URL a fetch tool reads; URLs all of them.
	URL  string   `json:"url,omitempty"`
	URLs []string `json:"urls,omitempty"`
	// Interactive is true for a call that starts a shell reading its
	// commands from the session's input (`bash`, `sh -i`, `...; exec
	// bash`), into which later write_stdin calls type, tty or not.
	Interactive bool `json:"interactive,omitempty"`
	// Terminal is the terminal session a write_stdin call types into.
	Terminal string `json:"terminal,omitempty"`
	// Opaque is true for terminal input holding control characters or
	// escape sequences hookgate does not replay (cursor movement, tab
	// completion, history recall): what the line runs cannot be read
	// from the text.
	Opaque bool `json:"opaque,omitempty"`
	// Truncated is true when hookgate could not keep the line typed into
	// the terminal whole (it outgrew the bound, or was forgotten under
	// load), so Command holds only part of it.
	Truncated bool `json:"truncated,omitempty"`
}

// byTool indexes Entries by tool name.
var byTool = func() map[string][]*Entry {
	m := map[string][]*Entry{}
	for i := range Entries {
		e := &Entries[i]
		m[e.Tool] = append(m[e.Tool], e)
	}
	return m
}()

// ClassOf returns the class of the tool named exactly tool, if it has one.
func ClassOf(tool string) (Class, bool) {
	es := byTool[tool]
	if len(es) == 0 {
		return "", false
	}
	return es[0].Class, true
}

// Read builds the view of a call of tool with input. typed is what the
// call's terminal session already holds of the line being typed (see
// Terminals); it matters only to a Stdin tool. A tool with no class has
// no view (nil).
//
// A name declared by several agents reads every field any of them names,
// so that the view never misses what one of them would act on.
func Read(tool string, input map[string]any, typed string) *View {
	es := byTool[tool]
	if len(es) == 0 {
		return nil
	}
	v := &View{Class: es[0].Class}
	var commands []string
	for _, e := range es {
		raw, present := input[e.Field]
		switch e.Shape {
		case Command, Argv:
			if present {
				if c := commandLine(raw); c != "" && !slices.Contains(commands, c) {
					commands = append(commands, c)
				}
			}
			if e.StartsSession && present && startsShell(commandLine(raw)) {
				v.Interactive = true
			}
			if present {
				v.Paths = appendUnique(v.Paths, shellPatchPaths(raw)...)
			}
		case Stdin:
			chars, _ := raw.(string)
			v.Terminal = sessionID(input[e.SessionField])
			// A trailing newline only says the last line is complete.
			line := strings.TrimSuffix(EditLine(typed+chars), "\n")
			commands = append(commands, line)
			v.Opaque = v.Opaque || opaque(line)
		case Path:
			if present {
				v.Paths = appendUnique(v.Paths, strings_(raw)...)
			}
		case Patch:
			if s, ok := raw.(string); ok {
				v.Paths = appendUnique(v.Paths, PatchPaths(s)...)
			}
		case URL:
			for _, u := range strings_(raw) {
				v.URLs = appendUnique(v.URLs, u)
			}
		case URLsInText:
			for _, t := range strings_(raw) {
				v.URLs = appendUnique(v.URLs, urlPattern.FindAllString(t, -1)...)
			}
		}
	}
	v.Command = strings.Join(commands, "\n")
	if len(v.URLs) > 0 {
		v.URL = v.URLs[0]
	}
	return v
}

// shellPatchPaths are the paths of a patch a shell call applies: Codex
// runs `apply_patch <patch>` (argv, or a heredoc in a command line)
// itself, as a write, not through a shell.
func shellPatchPaths(raw any) []string {
	var paths []string
	for _, s := range strings_(raw) {
		if strings.Contains(s, "*** ") && (strings.Contains(s, "apply_patch") || strings.Contains(s, "applypatch") || strings.HasPrefix(s, "*** Begin Patch")) {
			paths = appendUnique(paths, PatchPaths(s)...)
		}
	}
	return paths
}

// commandLine reads a command member: a string as it is, an array of
// strings as argv.
func commandLine(raw any) string {
	switch x := raw.(type) {
	case string:
		return x
	case []any:
		argv := make([]string, 0, len(x))
		for _, a := range x {
			s, ok := a.(string)
			if !ok {
				return ""
			}
			argv = append(argv, s)
		}
		return JoinArgv(argv)
	case []string:
		return JoinArgv(x)
	}
	return ""
}

// sessionID reads a terminal session id, a number or a string; a string
// that reads as a number is that number, so that 1 and "1" (or " 01")
// are one terminal.
func sessionID(raw any) string {
	switch x := raw.(type) {
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return ""
}

// strings_ reads a member holding a string or an array of strings.
func strings_(raw any) []string {
	switch x := raw.(type) {
	case string:
		if x != "" {
			return []string{x}
		}
	case []any:
		var out []string
		for _, a := range x {
			if s, ok := a.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return x
	}
	return nil
}

// appendUnique appends the strings of src not yet in dst. A long dst (a
// patch naming thousands of files) is indexed first.
func appendUnique(dst []string, src ...string) []string {
	if len(dst)+len(src) > 32 {
		seen := make(map[string]bool, len(dst)+len(src))
		for _, s := range dst {
			seen[s] = true
		}
		for _, s := range src {
			if !seen[s] {
				seen[s] = true
				dst = append(dst, s)
			}
		}
		return dst
	}
	for _, s := range src {
		if !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}

// urlPattern finds http(s) URLs in text.
var urlPattern = regexp.MustCompile(`https?://[^\s<>"'\x60]+`)

// opaque reports whether terminal input still holds a control character
// other than newline once EditLine has replayed what it replays.
func opaque(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\n' || c == 0x7f {
			return true
		}
	}
	return false
}

// TerminalOf returns the terminal session a call of tool types into, for
// a tool that types into one (write_stdin).
func TerminalOf(tool string, input map[string]any) (terminal, charsField string, ok bool) {
	for _, e := range byTool[tool] {
		if e.Shape == Stdin {
			return sessionID(input[e.SessionField]), e.Field, true
		}
	}
	return "", "", false
}

// caseMates indexes, per tool name, the other names of its class that
// differ from it only in letter case (Claude Code's Bash, opencode's and
// pi's bash).
var caseMates = func() map[string][]string {
	m := map[string][]string{}
	for a, as := range byTool {
		for b, bs := range byTool {
			if a != b && strings.EqualFold(a, b) && as[0].Class == bs[0].Class {
				m[a] = append(m[a], b)
			}
		}
	}
	for _, v := range m {
		slices.Sort(v)
	}
	return m
}()

// CaseMates returns the other tool names of tool's class that differ from
// it only in letter case. A policy that names one of them names them all:
// they are one kind of tool in different agents, not look-alikes.
func CaseMates(tool string) []string { return caseMates[tool] }
