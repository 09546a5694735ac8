package toolclass

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Terminal input, argv and patches come from the model: reading them never
// panics, an edited line never reaches back past a newline, and a line
// still holding a control character is opaque.
func FuzzReadTerminalInput(f *testing.F) {
	for _, s := range []string{"rm -r", "f /x\n", "a\x7f\x7f\x15b\r", "*** Add File: x\n", "bash -lc 'exec bash'", "\x1b[A\n", "é\x08"} {
		f.Add("rm -", s)
	}
	f.Fuzz(func(t *testing.T, typed, chars string) {
		v := Read("write_stdin", map[string]any{"session_id": float64(1), "chars": chars}, typed)
		if v == nil || v.Class != Shell {
			t.Fatal("no shell view")
		}
		edited := EditLine(typed + chars)
		if strings.Count(edited, "\n") != strings.Count(strings.ReplaceAll(typed+chars, "\r\n", "\n"), "\n")+strings.Count(strings.ReplaceAll(typed+chars, "\r\n", "\n"), "\r") {
			t.Fatalf("EditLine(%q) = %q changed the lines", typed+chars, edited)
		}
		if v.Opaque != opaque(strings.TrimSuffix(edited, "\n")) {
			t.Fatalf("opaque %v for %q", v.Opaque, edited)
		}
		if utf8.ValidString(typed+chars) && !utf8.ValidString(edited) {
			t.Fatalf("EditLine(%q) broke UTF-8: %q", typed+chars, edited)
		}
		_ = PatchPaths(chars)
		_ = Read("shell", map[string]any{"command": []any{typed, chars, "-c", chars}}, "")
		_ = Read("exec_command", map[string]any{"cmd": typed + chars, "tty": true}, "")
	})
}
