package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The rewrites the fuzzer applies to destructive command lines. Each one
// keeps what bash runs the same: the same program with the same arguments
// (a path may be spelled differently but names the same file). A command
// line is built from words, rewritten one by one, and then as a whole.

// rwWord is one word of a command line: its shell source, and whether
// that source is still plain (only characters no shell treats specially,
// so quoting and escaping it keeps its value).
type rwWord struct {
	Src   string
	Plain bool
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./=:+,@%-]+$`)

func rwWords(fields []string) []rwWord {
	ws := make([]rwWord, len(fields))
	for i, f := range fields {
		ws[i] = rwWord{Src: f, Plain: plainWord.MatchString(f)}
	}
	return ws
}

// Word rewrites. Each returns the word unchanged when it does not apply.

// rwEmptyQuotes inserts an empty quoted string inside a plain word (rm
// becomes r, two single quotes, m).
func rwEmptyQuotes(w rwWord, at int) rwWord {
	if !w.Plain || w.Src == "" {
		return w
	}
	p := at % (len(w.Src) + 1)
	return rwWord{Src: w.Src[:p] + "''" + w.Src[p:]}
}

// rwDoubleQuote: rm -> "rm".
func rwDoubleQuote(w rwWord) rwWord {
	if !w.Plain {
		return w
	}
	return rwWord{Src: `"` + w.Src + `"`}
}

// rwSingleQuote: rm -> 'rm'.
func rwSingleQuote(w rwWord) rwWord {
	if !w.Plain {
		return w
	}
	return rwWord{Src: "'" + w.Src + "'"}
}

// rwBackslashFirst: rm -> \rm.
func rwBackslashFirst(w rwWord) rwWord {
	if !w.Plain || w.Src == "" {
		return w
	}
	return rwWord{Src: `\` + w.Src}
}

// rwBackslashAll: rm -> \r\m.
func rwBackslashAll(w rwWord) rwWord {
	if !w.Plain {
		return w
	}
	var b strings.Builder
	for _, c := range w.Src {
		b.WriteByte('\\')
		b.WriteRune(c)
	}
	return rwWord{Src: b.String()}
}

var bundledFlags = regexp.MustCompile(`^-[A-Za-z]{2,}$`)

// getoptCommands bundle short flags the getopt way (-rf is -r -f); find,
// dd and the like do not, so flags are split and reordered only for them.
var getoptCommands = map[string]bool{"rm": true, "chmod": true, "chown": true, "chgrp": true, "shred": true, "wipefs": true}

// rwSplitFlags: -rf -> -r -f (one word becomes several).
func rwSplitFlags(w rwWord) []rwWord {
	if !w.Plain || !bundledFlags.MatchString(w.Src) {
		return []rwWord{w}
	}
	out := make([]rwWord, 0, len(w.Src)-1)
	for _, c := range w.Src[1:] {
		out = append(out, rwWord{Src: "-" + string(c), Plain: true})
	}
	return out
}

// rwReverseBundle: -rf -> -fr.
func rwReverseBundle(w rwWord) rwWord {
	if !w.Plain || !bundledFlags.MatchString(w.Src) {
		return w
	}
	b := []byte(w.Src[1:])
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return rwWord{Src: "-" + string(b), Plain: true}
}

// rwSwapFlags swaps two adjacent flag words before the first operand:
// -r -f -> -f -r.
func rwSwapFlags(ws []rwWord, at int) []rwWord {
	var flags []int
	for i := 1; i < len(ws); i++ {
		if !ws[i].Plain || !strings.HasPrefix(ws[i].Src, "-") || ws[i].Src == "--" {
			break
		}
		flags = append(flags, i)
	}
	if len(flags) < 2 {
		return ws
	}
	k := at % (len(flags) - 1)
	out := append([]rwWord{}, ws...)
	out[flags[k]], out[flags[k+1]] = out[flags[k+1]], out[flags[k]]
	return out
}

// rwUncleanPath spells an absolute path another way that names the same
// file: / -> /tmp/../, /etc -> //etc, /./etc, /tmp/../etc. Block devices
// keep their last element (no trailing slash on a file).
func rwUncleanPath(w rwWord, how int) rwWord {
	if !w.Plain || !strings.HasPrefix(w.Src, "/") {
		return w
	}
	switch how % 3 {
	case 0:
		return rwWord{Src: "/tmp/.." + w.Src, Plain: true}
	case 1:
		return rwWord{Src: "/" + w.Src, Plain: true}
	default:
		return rwWord{Src: "/." + w.Src, Plain: true}
	}
}

// rwHomeVar: ~ -> "$HOME", ~/x -> "$HOME"/x (the home directory either way).
func rwHomeVar(w rwWord) rwWord {
	if w.Src == "~" {
		return rwWord{Src: `"$HOME"`}
	}
	if strings.HasPrefix(w.Src, "~/") && plainWord.MatchString(w.Src[2:]+"x") {
		return rwWord{Src: `"$HOME"` + w.Src[1:]}
	}
	return w
}

// rwLine is a command line being rewritten: its source, and whether it is
// still one external command (which an exec-style wrapper such as sudo
// can run) or a builtin-prefixed one, or a compound.
type rwLine struct {
	Src  string
	Kind rwKind
}

type rwKind int

const (
	rwExternal rwKind = iota // a program: sudo, env, nice, ... can run it
	rwBuiltin                // starts with a builtin (command, exec, time): only builtins may wrap it
	rwCompound               // a list or subshell: only a shell or a group may hold it
	// rwRaw is any command line as written (a heredoc, a trailing &, a
	// comment): only quoting it whole for bash -c or eval keeps it.
	rwRaw
)

func joinWords(ws []rwWord) string {
	srcs := make([]string, len(ws))
	for i, w := range ws {
		srcs[i] = w.Src
	}
	return strings.Join(srcs, " ")
}

// rwJoinIFS joins the words with ${IFS} instead of spaces
// (rm${IFS}-rf${IFS}/). A word starting with ~ or holding a quote keeps a
// space before it: tilde expansion is for a word's start only, and
// splitting an unquoted ${IFS} next to quotes still splits there, but
// keeping this simple keeps it obviously true.
func rwJoinIFS(ws []rwWord) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			if strings.HasPrefix(w.Src, "~") || !ws[i-1].Plain || !w.Plain {
				b.WriteByte(' ')
			} else {
				b.WriteString("${IFS}")
			}
		}
		b.WriteString(w.Src)
	}
	return b.String()
}

// execWrappers run their arguments as a program.
// docker and kubectl exec run it in a container: the argv test runs them as
// pass-throughs.
var execWrappers = []string{"sudo", "env", "nice -n 5", "timeout 10", "nohup", "env FOO=1", "docker exec -u root app", "kubectl exec -n prod app --"}

// builtinWrappers are shell builtins or keywords: they wrap a command only
// where the shell reads a command name.
var builtinWrappers = []string{"command", "exec", "time"}

func rwExecWrap(l rwLine, which int) rwLine {
	if l.Kind != rwExternal {
		return l
	}
	return rwLine{Src: execWrappers[which%len(execWrappers)] + " " + l.Src, Kind: rwExternal}
}

func rwBuiltinWrap(l rwLine, which int) rwLine {
	if l.Kind == rwCompound || l.Kind == rwRaw {
		return l
	}
	return rwLine{Src: builtinWrappers[which%len(builtinWrappers)] + " " + l.Src, Kind: rwBuiltin}
}

// singleQuoted quotes s for the shell: ' becomes '\”.
func singleQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// rwShellC: bash -c '...' or sh -c '...' (an external program again).
func rwShellC(l rwLine, which int) rwLine {
	sh := []string{"bash -c ", "sh -c "}[which%2]
	return rwLine{Src: sh + singleQuoted(l.Src), Kind: rwExternal}
}

func rwEval(l rwLine) rwLine {
	return rwLine{Src: "eval " + singleQuoted(l.Src), Kind: rwBuiltin}
}

func rwSubshell(l rwLine) rwLine {
	if l.Kind == rwRaw {
		return l
	}
	return rwLine{Src: "( " + l.Src + " )", Kind: rwCompound}
}

func rwGroup(l rwLine) rwLine {
	if l.Kind == rwRaw {
		return l
	}
	return rwLine{Src: "{ " + l.Src + "; }", Kind: rwCompound}
}

func rwAfterTrue(l rwLine) rwLine {
	if l.Kind == rwRaw {
		return l
	}
	return rwLine{Src: "true && " + l.Src, Kind: rwCompound}
}

func rwAfterFalse(l rwLine) rwLine {
	if l.Kind == rwRaw {
		return l
	}
	return rwLine{Src: "false || " + l.Src, Kind: rwCompound}
}

// The unit tests run each rewrite's output in real bash, with PATH
// holding only an argv printer (named like the seed's command) and pass-
// through sudo, and require the argv bash hands the program to be the
// seed's, paths compared cleaned.

func argvBash(t *testing.T) (run func(line string) []string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("the rewrite tests need bash as the oracle: %v", err)
	}
	dir := t.TempDir()
	printer := "#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '%s\\0' \"$a\"; done\n"
	if err := os.WriteFile(filepath.Join(dir, "hgargv"), []byte(printer), 0o755); err != nil {
		t.Fatal(err)
	}
	passthrough := "#!/bin/sh\nexec \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "sudo"), []byte(passthrough), 0o755); err != nil {
		t.Fatal(err)
	}
	// docker exec -u root app CMD... and kubectl exec -n prod app -- CMD...
	for name, skip := range map[string]int{"docker": 4, "kubectl": 5} {
		stub := "#!/bin/sh\nshift " + strconv.Itoa(skip) + "\nexec \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	return func(line string) []string {
		t.Helper()
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", line)
		cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "HOME=" + home}
		cmd.Dir = t.TempDir()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", line, err)
		}
		fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		fields[0] = filepath.Base(fields[0])
		for i, f := range fields {
			if f == home || strings.HasPrefix(f, home+"/") {
				fields[i] = "~" + strings.TrimPrefix(f, home)
			}
			if strings.HasPrefix(fields[i], "/") {
				fields[i] = filepath.Clean(fields[i])
			}
		}
		return fields
	}
}

// seedArgv is what the seeds below run, paths cleaned and ~ for home.
var rwSeed = []string{"hgargv", "-rf", "/nonexistent-hg/x", "~", "-v"}

func sameArgv(t *testing.T, line string, got []string) {
	t.Helper()
	want := strings.Join(rwSeed, "\x00")
	gotS := strings.Join(got, "\x00")
	if gotS != want {
		t.Errorf("%s\n runs %q, want %q", line, got, rwSeed)
	}
}

func TestRewritesWordsPreserveArgv(t *testing.T) {
	run := argvBash(t)
	seed := rwWords(rwSeed)
	cases := map[string]func(rwWord, int) rwWord{
		"empty quotes":   rwEmptyQuotes,
		"double quote":   func(w rwWord, _ int) rwWord { return rwDoubleQuote(w) },
		"single quote":   func(w rwWord, _ int) rwWord { return rwSingleQuote(w) },
		"backslash":      func(w rwWord, _ int) rwWord { return rwBackslashFirst(w) },
		"backslash all":  func(w rwWord, _ int) rwWord { return rwBackslashAll(w) },
		"reverse bundle": func(w rwWord, _ int) rwWord { return rwReverseBundle(w) },
		"unclean path":   rwUncleanPath,
		"home var":       func(w rwWord, _ int) rwWord { return rwHomeVar(w) },
	}
	for name, rw := range cases {
		for i := range seed {
			for at := range 3 {
				ws := append([]rwWord{}, seed...)
				ws[i] = rw(ws[i], at)
				line := joinWords(ws)
				got := run(line)
				if name == "reverse bundle" && i == 1 {
					if line != "hgargv -fr /nonexistent-hg/x ~ -v" {
						t.Errorf("reverse bundle: %s", line)
					}
					continue // -fr is -rf to getopt, not to the printer
				}
				sameArgv(t, line, got)
			}
		}
	}
	if got := rwEmptyQuotes(rwWord{Src: "rm", Plain: true}, 1).Src; got != "r''m" {
		t.Errorf("empty quotes on rm: %s", got)
	}
	if got := rwBackslashFirst(rwWord{Src: "rm", Plain: true}).Src; got != `\rm` {
		t.Errorf("backslash on rm: %s", got)
	}
	if got := rwUncleanPath(rwWord{Src: "/", Plain: true}, 0).Src; got != "/tmp/../" {
		t.Errorf("unclean /: %s", got)
	}
}

func TestRewriteSplitAndSwapFlags(t *testing.T) {
	ws := rwWords([]string{"rm", "-rf", "/"})
	split := append([]rwWord{ws[0]}, append(rwSplitFlags(ws[1]), ws[2])...)
	if got := joinWords(split); got != "rm -r -f /" {
		t.Errorf("split: %s", got)
	}
	if got := joinWords(rwSwapFlags(split, 0)); got != "rm -f -r /" {
		t.Errorf("swap: %s", got)
	}
	if got := joinWords(rwSplitFlags(rwWord{Src: "--force", Plain: true})); got != "--force" {
		t.Errorf("split of a long flag: %s", got)
	}
}

func TestRewritesLinesPreserveArgv(t *testing.T) {
	run := argvBash(t)
	base := rwLine{Src: joinWords(rwWords(rwSeed)), Kind: rwExternal}
	var lines []string
	for i := range execWrappers {
		lines = append(lines, rwExecWrap(base, i).Src)
	}
	for i := range builtinWrappers {
		lines = append(lines, rwBuiltinWrap(base, i).Src)
	}
	lines = append(lines,
		rwShellC(base, 0).Src, rwShellC(base, 1).Src, rwEval(base).Src,
		rwSubshell(base).Src, rwGroup(base).Src, rwAfterTrue(base).Src, rwAfterFalse(base).Src,
		rwShellC(rwShellC(rwLine{Src: "hgargv -rf '/nonexistent-hg/x' ~ -v"}, 0), 1).Src,
		rwExecWrap(rwShellC(rwSubshell(base), 0), 0).Src,
		rwJoinIFS(rwWords(rwSeed)),
	)
	for _, l := range lines {
		sameArgv(t, l, run(l))
	}
	if got := rwShellC(rwLine{Src: "rm -rf '/'"}, 0).Src; got != `bash -c 'rm -rf '\''/'\'''` {
		t.Errorf("bash -c quoting: %s", got)
	}
	if got := rwJoinIFS(rwWords([]string{"rm", "-rf", "/"})); got != "rm${IFS}-rf${IFS}/" {
		t.Errorf("IFS join: %s", got)
	}
	raw := rwLine{Src: "hgargv -rf /nonexistent-hg/x ~ -v &\nwait", Kind: rwRaw}
	for _, l := range []rwLine{rwShellC(raw, 0), rwEval(raw), rwExecWrap(rwShellC(raw, 1), 2)} {
		sameArgv(t, l.Src, run(l.Src))
	}
	for _, l := range []rwLine{rwSubshell(raw), rwGroup(raw), rwAfterTrue(raw), rwAfterFalse(raw), rwExecWrap(raw, 0), rwBuiltinWrap(raw, 0)} {
		if l != raw {
			t.Errorf("a raw line was rewritten other than whole: %s", l.Src)
		}
	}
	if l := rwExecWrap(rwBuiltinWrap(base, 0), 0); l.Src != "command "+base.Src {
		t.Errorf("an exec wrapper wrapped a builtin: %s", l.Src)
	}
}
