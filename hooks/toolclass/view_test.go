package toolclass

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// sampleInput is an input of e's shape that names target.
func sampleInput(e Entry, target string) map[string]any {
	switch e.Shape {
	case Argv:
		return map[string]any{e.Field: []any{"bash", "-lc", target}}
	case Stdin:
		return map[string]any{e.SessionField: float64(7), e.Field: target + "\n"}
	case Patch:
		return map[string]any{e.Field: "*** Begin Patch\n*** Add File: " + target + "\n+x\n*** End Patch\n"}
	case URLsInText:
		return map[string]any{e.Field: "summarise " + target + " please"}
	}
	return map[string]any{e.Field: target}
}

// Every entry's sample input is read into its class's view.
func TestEveryEntryIsRead(t *testing.T) {
	for _, e := range Entries {
		t.Run(e.Agent+"/"+e.Tool, func(t *testing.T) {
			if e.Version == "" || e.Agent == "" || !Known(string(e.Class)) {
				t.Fatalf("entry %+v lacks agent, version or a known class", e)
			}
			var target string
			switch e.Class {
			case Shell:
				target = "rm -rf /"
			case WebFetch:
				target = "https://example.com/x"
			default:
				target = "/srv/app/main.go"
			}
			v := Read(e.Tool, sampleInput(e, target), "")
			if v == nil || v.Class != e.Class {
				t.Fatalf("view %+v, want class %s", v, e.Class)
			}
			switch e.Class {
			case Shell:
				if v.Command != target {
					t.Fatalf("command %q, want %q", v.Command, target)
				}
			case WebFetch:
				if v.URL != target {
					t.Fatalf("url %q, want %q", v.URL, target)
				}
			default:
				if !slices.Contains(v.Paths, target) {
					t.Fatalf("paths %q lack %q", v.Paths, target)
				}
			}
		})
	}
}

// A name several agents declare has one class.
func TestSharedNamesHaveOneClass(t *testing.T) {
	for name, es := range byTool {
		for _, e := range es {
			if e.Class != es[0].Class {
				t.Errorf("%s: %s says %s, %s says %s", name, es[0].Agent, es[0].Class, e.Agent, e.Class)
			}
		}
	}
	// opencode's read (filePath) and pi's read (path): both are read.
	v := Read("read", map[string]any{"filePath": "/a", "path": "/b"}, "")
	if !slices.Equal(v.Paths, []string{"/a", "/b"}) {
		t.Fatalf("paths %q", v.Paths)
	}
	if Read("exec", map[string]any{"command": "ls"}, "") != nil {
		t.Fatal("a tool with no entry has a view")
	}
}

func TestPatchPaths(t *testing.T) {
	patch := "*** Begin Patch\n" +
		"*** Add File: docs/new.md\n+hello\n" +
		"*** Update File: src/app.go\n*** Move to: src/main.go\n@@\n-a\n+b\n" +
		"*** Delete File: /etc/passwd\r\n" +
		"  *** Update File: indented.txt\n" +
		"*** Update File: src/app.go\n@@\n-c\n+d\n" +
		"*** End Patch\n"
	want := []string{"docs/new.md", "src/app.go", "src/main.go", "/etc/passwd", "indented.txt"}
	if got := PatchPaths(patch); !slices.Equal(got, want) {
		t.Fatalf("paths %q, want %q", got, want)
	}
	// Codex's custom tool (hookgate shows it as {"input": text}) and
	// opencode's apply_patch {patchText}.
	for _, in := range []map[string]any{{"input": patch}, {"patchText": patch}} {
		v := Read("apply_patch", in, "")
		if v.Class != FileWrite || !slices.Equal(v.Paths, want) {
			t.Fatalf("view %+v", v)
		}
	}
}

func TestJoinArgv(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"rm", "-rf", "/"}, "rm -rf /"},
		{[]string{"bash", "-lc", "rm -rf /tmp/x && ls"}, "rm -rf /tmp/x && ls"},
		{[]string{"/bin/sh", "-c", "echo hi"}, "echo hi"},
		{[]string{"bash", "-o", "pipefail", "-c", "a | b"}, "a | b"},
		{[]string{"bash", "script.sh", "-c", "x"}, "bash script.sh -c x"},
		{[]string{"echo", "it's", "a b", ""}, `echo 'it'\''s' 'a b' ''`},
		{[]string{"git", "commit", "-m", "x;y"}, "git commit -m 'x;y'"},
	} {
		if got := JoinArgv(tc.argv); got != tc.want {
			t.Errorf("JoinArgv(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
	v := Read("shell", map[string]any{"command": []any{"rm", "-r", "/srv/x"}, "workdir": "/"}, "")
	if v.Command != "rm -r /srv/x" {
		t.Fatalf("command %q", v.Command)
	}
	// A string where argv is expected is still the command line.
	if v := Read("shell", map[string]any{"command": "rm -rf /"}, ""); v.Command != "rm -rf /" {
		t.Fatalf("command %q", v.Command)
	}
}

func TestInteractiveShell(t *testing.T) {
	for cmd, want := range map[string]bool{
		"bash":                        true,
		"sh -i":                       true,
		"cd /srv; exec bash":          true,
		"/bin/zsh -l":                 true,
		"env FOO=1 bash --norc":       true,
		"bash -s":                     true,
		"bash -lc 'exec bash'":        true,
		"bash -lc 'npm test'":         false,
		"bash ./build.sh":             false,
		"ls -la":                      false,
		"echo bash":                   false,
		"python3 -m http.server 8000": false,
	} {
		v := Read("exec_command", map[string]any{"cmd": cmd, "tty": true}, "")
		if v.Interactive != want {
			t.Errorf("%q: interactive %v, want %v", cmd, v.Interactive, want)
		}
		if v.Command != cmd {
			t.Errorf("%q: command %q", cmd, v.Command)
		}
	}
}

func TestEditLine(t *testing.T) {
	for in, want := range map[string]string{
		"ls\r":                  "ls\n",
		"ls\r\n":                "ls\n",
		"rm -rX\x7f /":          "rm -r /",
		"rm -r /tmp/a\x17/srv":  "rm -r /srv",
		"echo safe\x15rm -r /x": "rm -r /x",
		"a\n\x7f\x7fb":          "a\nb",
		"é\x7f":                 "",
		"rm -r /srv\x03ls\n":    "ls\n",
		"exit\x04":              "exit",
	} {
		if got := EditLine(in); got != want {
			t.Errorf("EditLine(%q) = %q, want %q", in, got, want)
		}
	}
	v := Read("write_stdin", map[string]any{"session_id": float64(1), "chars": "m -r /srv\x01r\n"}, "")
	if !v.Opaque {
		t.Fatalf("cursor movement not opaque: %+v", v)
	}
}

// A command typed across several write_stdin calls is judged whole: each
// call's view holds the line it completes (and the line still being typed).
func TestStdinAcrossCalls(t *testing.T) {
	terms := NewTerminals(0, 0)
	key := TerminalKey{Session: "s1", Tenant: "acme", Terminal: "7"}
	call := func(id, chars string) *View {
		typed, trunc := terms.Typed(key, id)
		in := map[string]any{"session_id": float64(7), "chars": chars}
		v := Read("write_stdin", in, typed)
		v.Truncated = trunc
		terms.Commit(key, id, typed, trunc, chars)
		return v
	}
	if v := call("c1", "rm -r"); v.Command != "rm -r" || v.Terminal != "7" {
		t.Fatalf("first call %+v", v)
	}
	if v := call("c2", "f /x\n"); v.Command != "rm -rf /x" {
		t.Fatalf("second call %q", v.Command)
	}
	if v := call("c3", "ls\nrm -r"); v.Command != "ls\nrm -r" {
		t.Fatalf("third call %q", v.Command)
	}
	// The same call judged again sees the line as before it.
	if v := call("c3", "ls\nrm -r"); v.Command != "ls\nrm -r" {
		t.Fatalf("resent call %q", v.Command)
	}
	// The session id as a string is the same terminal.
	terms.Commit(key, "c4", "rm -r", false, " /")
	typed, _ := terms.Typed(TerminalKey{Session: "s1", Tenant: "acme", Terminal: sessionID(" 07")}, "c5")
	if typed != "rm -r /" {
		t.Fatalf("terminal \" 07\" reads %q", typed)
	}
	// Another terminal, tenant or session shares nothing.
	other := key
	other.Tenant = "globex"
	if typed, _ := terms.Typed(other, "x"); typed != "" {
		t.Fatalf("tenant globex sees %q", typed)
	}
}

func TestTerminalsBounds(t *testing.T) {
	terms := NewTerminals(3, 8)
	for i := range 5 {
		k := TerminalKey{Session: "s", Terminal: fmt.Sprint(i)}
		terms.Commit(k, "c", "", false, "partial")
	}
	if n := terms.size(); n != 3 {
		t.Fatalf("%d sessions kept, want 3", n)
	}
	lost := TerminalKey{Session: "s", Terminal: "0"}
	if typed, trunc := terms.Typed(lost, ""); typed != "" || !trunc {
		t.Fatalf("oldest not evicted, or evicted without a trace: %q %v", typed, trunc)
	}
	// The lost line reads as truncated until a newline ends it.
	terms.Commit(lost, "l1", "", true, "more")
	if _, trunc := terms.Typed(lost, ""); !trunc {
		t.Fatal("the lost line reads whole")
	}
	terms.Commit(lost, "l2", "more", true, "\n")
	if typed, trunc := terms.Typed(lost, ""); typed != "" || trunc {
		t.Fatalf("after the newline: %q %v", typed, trunc)
	}
	// ^C discards a line that could not be kept whole.
	terms.Commit(lost, "l3", "", true, "x")
	terms.Commit(lost, "l4", "x", true, "\x03ls")
	if typed, trunc := terms.Typed(lost, ""); typed != "ls" || trunc {
		t.Fatalf("after ^C: %q %v", typed, trunc)
	}
	if !DiscardsLine("\x15rm") || DiscardsLine("a\n\x03") || DiscardsLine("ls") {
		t.Fatal("DiscardsLine")
	}
	k := TerminalKey{Session: "s", Terminal: "4"}
	terms.Commit(k, "c2", "partial", false, " and much more")
	typed, trunc := terms.Typed(k, "")
	if len(typed) != 8 || !trunc {
		t.Fatalf("kept %q truncated %v", typed, trunc)
	}
	terms.Commit(k, "c3", typed, trunc, "x\nok")
	if typed, trunc := terms.Typed(k, ""); typed != "ok" || trunc {
		t.Fatalf("after newline %q %v", typed, trunc)
	}
	// A finished line is not kept.
	before := terms.size()
	terms.Commit(k, "c4", "ok", false, "\n")
	if terms.size() != before-1 {
		t.Fatalf("%d terminals kept after the line ended, want %d", terms.size(), before-1)
	}
}

// Codex applies a patch through its shell tools too: the view names the
// patch's paths.
func TestShellAppliesPatch(t *testing.T) {
	patch := "*** Begin Patch\n*** Delete File: /etc/hosts\n*** End Patch\n"
	for tool, in := range map[string]map[string]any{
		"shell":        {"command": []any{"apply_patch", patch}},
		"exec_command": {"cmd": "apply_patch <<'EOF'\n" + patch + "EOF\n"},
	} {
		v := Read(tool, in, "")
		if v.Class != Shell || !slices.Equal(v.Paths, []string{"/etc/hosts"}) {
			t.Errorf("%s: %+v", tool, v)
		}
	}
	if v := Read("Bash", map[string]any{"command": "ls"}, ""); len(v.Paths) != 0 {
		t.Errorf("ls has paths %q", v.Paths)
	}
}

// Editing a long line costs time linear in its length.
func TestEditLineLinear(t *testing.T) {
	long := strings.Repeat("ab\x7f", 1<<18) + "\n"
	start := time.Now()
	if got := EditLine(long); len(got) != 1<<18+1 {
		t.Fatalf("edited to %d bytes", len(got))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("editing 768 KiB took %s", d)
	}
}

// A patch naming many files is read in time linear in its length.
func TestPatchPathsLinear(t *testing.T) {
	var b strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&b, "*** Add File: f%d\n+x\n", i)
	}
	start := time.Now()
	v := Read("apply_patch", map[string]any{"input": b.String(), "patchText": b.String()}, "")
	if len(v.Paths) != 100_000 {
		t.Fatalf("%d paths", len(v.Paths))
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("reading took %s", d)
	}
}
