package toolclass

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// shells are the programs that, started without a script, read commands
// from their input.
var shells = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "busybox"}

// JoinArgv turns argv into the command line a shell would read as it:
// words that need it are single-quoted. A shell started with a -c script
// (`bash -lc X`, `sh -c X`) reads as the script X itself, since X is what
// runs.
func JoinArgv(argv []string) string {
	if script, ok := shellScript(argv); ok {
		return script
	}
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteWord(a))
	}
	return b.String()
}

// shellScript finds the script of `<shell> [flags] -c script [args]`.
func shellScript(argv []string) (string, bool) {
	if len(argv) < 3 || !slices.Contains(shells, path.Base(argv[0])) {
		return "", false
	}
	for i := 1; i < len(argv)-1; i++ {
		switch a := argv[i]; {
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			i++ // an option's name follows
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if strings.ContainsRune(a[1:], 'c') {
				return argv[i+1], true
			}
		default:
			return "", false // a script file
		}
	}
	return "", false
}

// quoteWord single-quotes a word a shell would otherwise split or expand.
func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	plain := true
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("_@%+=:,./-", c) >= 0) {
			plain = false
			break
		}
	}
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// startsShell reports whether a command line starts a shell that reads
// its commands from its input: a simple command (of a list or pipeline)
// that is a shell, possibly after exec, env, command, nohup, sudo or
// variable assignments, given no script file and no -c script (or given
// -i or -s). A -c script is searched in turn (`bash -lc 'exec bash'`).
func startsShell(cmd string) bool { return startsShellDepth(cmd, 0) }

func startsShellDepth(cmd string, depth int) bool {
	if depth > 4 {
		return false
	}
	for _, seg := range splitCommands(cmd) {
		words := strings.Fields(seg)
		for len(words) > 0 {
			w := strings.Trim(words[0], `"'`)
			if w == "exec" || w == "command" || w == "env" || w == "nohup" || w == "sudo" || w == "" ||
				strings.Contains(w, "=") && w[0] != '-' && w[0] != '=' {
				words = words[1:]
				continue
			}
			break
		}
		if len(words) == 0 || !slices.Contains(shells, path.Base(strings.Trim(words[0], `"'`))) {
			continue
		}
		readsInput := true
	args:
		for j, a := range words[1:] {
			switch {
			case strings.HasPrefix(a, "--"):
			case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
				if strings.ContainsAny(a[1:], "is") {
					return true
				}
				if strings.ContainsRune(a[1:], 'c') {
					script := strings.Trim(strings.Join(words[2+j:], " "), `"'`)
					if startsShellDepth(script, depth+1) {
						return true
					}
					readsInput = false
					break args
				}
			default:
				readsInput = false // a script file
				break args
			}
		}
		if readsInput {
			return true
		}
	}
	return false
}

// splitCommands splits a command line at ; & | and newlines (quotes are
// not honoured: a separator inside quotes only yields more candidates).
func splitCommands(cmd string) []string {
	return strings.FieldsFunc(cmd, func(r rune) bool {
		return r == ';' || r == '&' || r == '|' || r == '\n' || r == '(' || r == ')' || r == '{' || r == '}'
	})
}

// DiscardsLine reports whether typing chars first discards the line being
// typed (^C or ^U before any newline), so that what came before it on
// that line no longer matters.
func DiscardsLine(chars string) bool {
	i := strings.IndexAny(chars, "\x03\x15\r\n")
	return i >= 0 && (chars[i] == 0x03 || chars[i] == 0x15)
}

// EditLine replays the line editing a terminal does on typed text: a
// carriage return ends a line as a newline does, backspace (DEL or BS)
// deletes the character before it, ^U and ^C the line typed so far, ^W
// the word before it, and ^D types nothing; none of them reaches back past
// a newline. Other control characters (escape sequences, tab completion)
// are kept (the view is then Opaque).
func EditLine(typed string) string {
	if !strings.ContainsAny(typed, "\r\x7f\x08\x15\x17\x03\x04") {
		return typed
	}
	out := make([]byte, 0, len(typed))
	start := 0 // where the line being edited starts in out
	for i := 0; i < len(typed); i++ {
		switch c := typed[i]; c {
		case '\r', '\n':
			if c == '\r' && i+1 < len(typed) && typed[i+1] == '\n' {
				continue
			}
			out = append(out, '\n')
			start = len(out)
		case 0x7f, 0x08:
			if len(out) > start {
				_, size := utf8.DecodeLastRune(out[start:])
				out = out[:len(out)-size]
			}
		case 0x15, 0x03:
			// ^U kills the line typed so far; ^C (an interrupt) discards it.
			out = out[:start]
		case 0x04:
			// ^D ends input on an empty line and types nothing otherwise.
		case 0x17:
			end := len(out)
			for end > start && (out[end-1] == ' ' || out[end-1] == '\t') {
				end--
			}
			for end > start && out[end-1] != ' ' && out[end-1] != '\t' {
				end--
			}
			out = out[:end]
		default:
			out = append(out, c)
		}
	}
	return string(out)
}
