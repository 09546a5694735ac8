package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unknownSentinel is the variable a placeholder becomes when a string with
// unknown parts is parsed again as a script (bash -c "rm -rf $DIR"): its
// expansion resolves back to Unknown.
const unknownSentinel = "__hookgate_unknown__"

var placeholderToSentinel = strings.NewReplacer(
	UnknownSubst, "${"+unknownSentinel+"}",
	UnknownProcSubst, "${"+unknownSentinel+"}",
	UnknownStdin, "${"+unknownSentinel+"}",
	UnknownFound, "${"+unknownSentinel+"}",
	Unknown, "${"+unknownSentinel+"}",
)

// wrapperOpts lists, per wrapper, the options that take a separate value.
var wrapperOpts = map[string]string{
	"sudo":    "-u -g -C -D -h -p -r -t -U -T -R --user --group --close-from --chdir --host --prompt --role --type --other-user --command-timeout --chroot",
	"doas":    "-u -C",
	"setpriv": "--reuid --regid --groups --inh-caps --ambient-caps --bounding-set --securebits --selinux-label --apparmor-profile",
	"env":     "-u -C -S --unset --chdir --split-string",
	"nice":    "-n --adjustment",
	"ionice":  "-c -n -t --class --classdata",
	"stdbuf":  "-i -o -e --input --output --error",
	"exec":    "-a",
	"chroot":  "--userspec --groups",
	"time":    "-f -o --format --output",
	"nohup":   "",
	"command": "",
	"busybox": "",
	"timeout": "-s -k --signal --kill-after",
	"setsid":  "",
	"nsenter": "-t -S -G --target --setuid --setgid",
	"unshare": "--map-user --map-group",
}

// commandStringRunners run a string given to -c (or --command) as a shell
// would; watch runs its arguments joined as one.
var commandStringRunners = map[string]bool{"su": true, "runuser": true, "flock": true, "watch": true}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true}

// emit looks through wrappers to the command argv runs and records it.
func (w *walker) emit(argv []string, c ctx) {
	if len(argv) == 0 {
		return
	}
	if w.tooDeep(c, "wrapper") || w.overBudget() {
		return
	}
	if argv[0] != "[" && argv[0] != "[[" && strings.ContainsAny(argv[0], "*?[") {
		w.unresolvable("command_name", "command name from a glob")
		return
	}
	if strings.Contains(argv[0], Unknown) {
		construct := "command name from an expansion"
		if len(c.via) > 0 {
			construct += " (after " + c.via[len(c.via)-1] + ")"
		}
		w.unresolvable("command_name", construct)
		return
	}
	name := baseName(argv[0])
	if _, ok := wrapperOpts[name]; ok {
		inner := w.unwrap(name, argv)
		if len(inner) == 0 {
			w.record(argv, c) // a wrapper with no command: sudo -v, bare env
			return
		}
		w.emit(inner, c.through(name))
		return
	}
	if w.remoteRunner(name, argv, c) {
		return
	}
	switch {
	case shells[name]:
		w.shell(name, argv, c)
	case commandStringRunners[name]:
		w.record(argv, c)
		w.commandString(name, argv, c)
	case name == "eval":
		w.record(argv, c)
		w.script(strings.Join(argv[1:], " "), "eval", w.dialect, c)
	case name == "source" || name == ".":
		w.record(argv, c)
		if len(argv) > 1 {
			w.scriptFile(name, argv[1], c)
		}
	case name == "xargs":
		w.xargs(argv, c)
	case name == "find":
		w.find(argv, c)
	case interpreterOf(name) != "":
		w.record(argv, c)
		w.inline(interpreterOf(name), name, argv, c)
	default:
		w.record(argv, c)
	}
}

// unwrap returns the command a wrapper runs, nil when it runs none.
func (w *walker) unwrap(name string, argv []string) []string {
	valued := wrapperOpts[name]
	takesValue := func(opt string) bool {
		if valued == "" {
			return false
		}
		for _, o := range strings.Fields(valued) {
			if o == opt {
				return true
			}
		}
		return false
	}
	i := 1
	if name == "busybox" {
		return argv[1:]
	}
	for i < len(argv) {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if (name == "env" || name == "sudo") && strings.Contains(a, "=") && !strings.HasPrefix(a, "-") {
			i++ // NAME=value
			continue
		}
		if name == "env" {
			// env -S "cmd args" splits the string into the command.
			switch {
			case (a == "-S" || a == "--split-string") && i+1 < len(argv):
				return append(strings.Fields(argv[i+1]), argv[i+2:]...)
			case strings.HasPrefix(a, "--split-string="):
				return append(strings.Fields(strings.TrimPrefix(a, "--split-string=")), argv[i+1:]...)
			case strings.HasPrefix(a, "-S") && len(a) > 2:
				return append(strings.Fields(a[2:]), argv[i+1:]...)
			}
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		if name == "command" && (a == "-v" || a == "-V") {
			return nil // only looks the name up
		}
		if strings.HasPrefix(a, "--") {
			if strings.Contains(a, "=") || !takesValue(a) {
				i++
			} else {
				i += 2
			}
			continue
		}
		if name == "nice" && len(a) > 1 && a[1] >= '0' && a[1] <= '9' {
			i++ // nice -10
			continue
		}
		if len(a) == 2 && takesValue(a) {
			i += 2
			continue
		}
		// A cluster of flags; one that takes a value may end it (-uroot).
		i++
	}
	switch name {
	case "timeout":
		i++ // the duration
	case "chroot":
		i++ // the new root
	}
	if i >= len(argv) {
		return nil
	}
	return argv[i:]
}

// shell handles sh/bash/...: the string given to -c is parsed again, a
// script read from a pipe, a file or a process substitution is unresolvable.
func (w *walker) shell(name string, argv []string, c ctx) {
	w.record(argv, c)
	cflag, sflag := false, false
	i := 1
	for i < len(argv) {
		a := argv[i]
		if a == "--" || a == "-" {
			i++
			break
		}
		if a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file" {
			i += 2
			continue
		}
		if strings.HasPrefix(a, "--") {
			i++
			continue
		}
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			if a[0] == '-' && strings.IndexByte(a, 'c') >= 0 {
				cflag = true
			}
			if a[0] == '-' && strings.IndexByte(a, 's') >= 0 {
				sflag = true // the script is standard input, the rest are its arguments
			}
			i++
			continue
		}
		break
	}
	rest := argv[min(i, len(argv)):]
	lang := syntax.LangBash
	if name == "sh" || name == "dash" || name == "ash" {
		lang = w.dialect
	}
	via := name + " -c"
	switch {
	case cflag && len(rest) > 0:
		// The words after the script string are its $0, $1, ... unless the
		// script may change them (set --, shift): then they are unknown.
		c.args, c.argsKnown = rest[1:], !strings.Contains(rest[0], "set") && !strings.Contains(rest[0], "shift")
		w.script(rest[0], via, lang, c)
	case cflag:
		w.unresolvable("syntax", name+" -c without a script")
	case len(rest) > 0 && !sflag:
		w.scriptFile(name, rest[0], c)
	case c.hasScript:
		w.script(c.script, name+" <<EOF", lang, c)
	case c.stdin != "":
		w.unresolvable("pipe_to_shell", "shell reading a script from "+c.stdin)
	}
}

// script parses a script string again, as `bash -c` or eval would. A
// string that is nothing but unknown parts is a shell fed from elsewhere.
func (w *walker) script(src, via string, lang syntax.LangVariant, c ctx) {
	if strings.Contains(src, Unknown) {
		if strings.TrimSpace(stripPlaceholders(src)) == "" {
			kind, from := "command_name", "an expansion"
			switch {
			case strings.Contains(src, UnknownSubst):
				kind, from = "pipe_to_shell", "$(...)"
			case strings.Contains(src, UnknownProcSubst):
				kind, from = "pipe_to_shell", "<(...)"
			case strings.Contains(src, UnknownStdin):
				kind, from = "pipe_to_shell", "xargs input"
			}
			what := "shell running a script from " + from
			if via == "eval" {
				what = "eval of " + from
			}
			w.unresolvable(kind, what)
			return
		}
		src = placeholderToSentinel.Replace(src)
	}
	if via != "eval" {
		// Another process: its cd does not move this shell.
		saved := w.cwd
		defer func() { w.cwd = saved }()
	}
	w.parseAndWalk(src, lang, c.through(via))
}

func stripPlaceholders(s string) string {
	for _, p := range []string{UnknownSubst, UnknownProcSubst, UnknownStdin, UnknownFound, Unknown} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

// scriptFile judges a shell or source reading a script from a file: a
// process substitution or standard input is a script fed from elsewhere.
func (w *walker) scriptFile(name, path string, c ctx) {
	who := "shell"
	if name == "source" || name == "." {
		who = name
	}
	switch {
	case strings.Contains(path, UnknownProcSubst):
		w.unresolvable("pipe_to_shell", who+" reading a script from <(...)")
	case path == "/dev/stdin" || path == "-" || strings.HasPrefix(path, "/dev/fd/") || strings.HasPrefix(path, "/proc/self/fd/"):
		from := c.stdin
		if from == "" {
			from = "standard input"
		}
		w.unresolvable("pipe_to_shell", who+" reading a script from "+from)
	case strings.Contains(path, Unknown):
		w.unresolvable("command_name", who+" reading a script file named by an expansion")
	}
}

var xargsValued = map[string]bool{"-a": true, "-d": true, "-E": true, "-I": true, "-L": true, "-n": true, "-P": true, "-s": true,
	"--arg-file": true, "--delimiter": true, "--max-lines": true, "--max-args": true, "--max-procs": true, "--max-chars": true,
	"--replace": false, "--process-slot-var": true}

// xargs runs its argv with its input as further arguments: the input
// becomes UnknownStdin (in place of the -I string, or appended).
func (w *walker) xargs(argv []string, c ctx) {
	repl := ""
	i := 1
	for i < len(argv) {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch {
		case a == "-I" && i+1 < len(argv):
			repl = argv[i+1]
			i += 2
			continue
		case strings.HasPrefix(a, "-I"):
			repl = a[2:]
		case a == "-i" || a == "--replace":
			repl = "{}"
		case strings.HasPrefix(a, "-i"):
			repl = a[2:]
		case strings.HasPrefix(a, "--replace="):
			repl = strings.TrimPrefix(a, "--replace=")
		case xargsValued[a]:
			i += 2
			continue
		}
		i++
	}
	inner := []string{"echo"}
	if i < len(argv) {
		inner = append([]string(nil), argv[i:]...)
	}
	if repl != "" {
		for k := range inner {
			inner[k] = strings.ReplaceAll(inner[k], repl, UnknownStdin)
		}
	} else {
		inner = append(inner, UnknownStdin)
	}
	w.emit(inner, c.through("xargs"))
}

// findOptions are find's options that are not tests: they do not narrow
// what it matches.
var findOptions = map[string]bool{"-depth": true, "-d": true, "-xdev": true, "-mount": true, "-follow": true,
	"-noleaf": true, "-ignore_readdir_race": true, "-noignore_readdir_race": true, "-daystart": true,
	"-maxdepth": true, "-warn": true, "-nowarn": true, "-print": true, "-print0": true, "-ls": true,
	"-regextype": true}

var findValued = map[string]bool{"-maxdepth": true, "-mindepth": true, "-regextype": true}

// find runs the command of each -exec/-execdir/-ok/-okdir on what it finds,
// and -delete removes it: both are read with find's start paths as the
// targets (or UnknownFound under them when a test narrows the match).
func (w *walker) find(argv []string, c ctx) {
	w.record(argv, c)
	i := 1
	for i < len(argv) && (argv[i] == "-H" || argv[i] == "-L" || argv[i] == "-P" || strings.HasPrefix(argv[i], "-O") || argv[i] == "-D") {
		if argv[i] == "-D" {
			i++
		}
		i++
	}
	var starts []string
	for i < len(argv) {
		a := argv[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == "," {
			break
		}
		starts = append(starts, a)
		i++
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	filtered := false
	target := func(start string) string {
		if !filtered {
			return start
		}
		if strings.HasSuffix(start, "/") {
			return start + UnknownFound
		}
		return start + "/" + UnknownFound
	}
	for i < len(argv) {
		a := argv[i]
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(argv) && argv[j] != ";" && argv[j] != "+" {
				j++
			}
			cmd := argv[i+1 : j]
			if len(cmd) > 0 {
				for _, s := range starts {
					inner := make([]string, len(cmd))
					for k, x := range cmd {
						inner[k] = strings.ReplaceAll(x, "{}", target(s))
					}
					w.emit(inner, c.through("find "+a))
				}
			}
			i = j + 1
			continue
		case "-delete":
			for _, s := range starts {
				rm := []string{"rm", "-f", target(s)}
				if !filtered {
					rm = []string{"rm", "-r", "-f", s}
				}
				w.emit(rm, c.through("find -delete"))
			}
		case "(", ")", "!", "-not", ",", "-a", "-and", "-o", "-or", "-true":
		default:
			if findValued[a] {
				if a == "-mindepth" {
					filtered = true
				}
				i += 2
				continue
			}
			if strings.HasPrefix(a, "-") && !findOptions[a] {
				filtered = true // a test: -name, -type, -path, -mtime, ...
			}
		}
		i++
	}
}

// commandString runs the string of su/runuser/flock -c, or watch's
// arguments, as a script.
func (w *walker) commandString(name string, argv []string, c ctx) {
	if name == "watch" {
		i := 1
		for i < len(argv) && strings.HasPrefix(argv[i], "-") {
			if argv[i] == "-n" || argv[i] == "-d" || argv[i] == "--interval" || argv[i] == "-q" {
				i++
			}
			i++
		}
		if i < len(argv) {
			w.script(strings.Join(argv[i:], " "), "watch", syntax.LangBash, c)
		}
		return
	}
	for i := 1; i+1 < len(argv); i++ {
		if argv[i] == "-c" || argv[i] == "--command" {
			w.script(argv[i+1], name+" -c", syntax.LangBash, c)
			return
		}
		if strings.HasPrefix(argv[i], "--command=") {
			w.script(strings.TrimPrefix(argv[i], "--command="), name+" -c", syntax.LangBash, c)
			return
		}
	}
	if name == "flock" {
		// flock [options] file command [args]: the command after the lock file.
		i := 1
		for i < len(argv) && strings.HasPrefix(argv[i], "-") {
			if argv[i] == "-w" || argv[i] == "-E" || argv[i] == "--timeout" {
				i++
			}
			i++
		}
		if i+1 < len(argv) {
			w.emit(argv[i+1:], c.through("flock"))
		}
	}
}
