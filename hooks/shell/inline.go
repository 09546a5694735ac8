package shell

import (
	"regexp"
	"strings"
)

// Inline interpreter code (python -c, node -e, perl -e, ruby -e) is read
// best effort, by patterns over its text, not by parsing the language: a
// call to a known destructive API on a literal path reads as the rm it
// amounts to, and a shell string or argv list handed to the system reads
// as the commands it runs. Code that builds its paths or commands at run
// time is not seen.

// interpreterOf names the language a command name runs, "" for none.
func interpreterOf(name string) string {
	switch {
	case strings.HasPrefix(name, "python") && strings.Trim(name[len("python"):], "0123456789.") == "":
		return "python"
	case name == "node" || name == "nodejs" || name == "bun" || name == "deno":
		return "node"
	case strings.HasPrefix(name, "perl") && strings.Trim(name[len("perl"):], "0123456789.") == "":
		return "perl"
	case name == "ruby":
		return "ruby"
	}
	return ""
}

// inlineCode returns the code given on the command line, "" for none.
func inlineCode(lang string, argv []string) string {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return "" // a script file (or stdin): not inline
		}
		if (lang == "perl" || lang == "ruby") && len(a) > 2 && strings.ContainsRune("MmIr", rune(a[1])) {
			continue // -MFile::Path, -Ilib, -rfileutils: a module, not -e
		}
		if (lang == "node" && (a == "-r" || a == "--require" || a == "--import")) || (lang == "python" && (a == "-W" || a == "-X")) ||
			((lang == "perl" || lang == "ruby") && (a == "-I" || a == "-M" || a == "-r")) {
			i++ // an option's value
			continue
		}
		var hit bool
		switch lang {
		case "python":
			hit = a == "-c" || (!strings.HasPrefix(a, "--") && strings.HasSuffix(a, "c"))
		case "node":
			hit = a == "-e" || a == "--eval" || a == "-p" || a == "--print" || a == "-pe"
			if strings.HasPrefix(a, "--eval=") || strings.HasPrefix(a, "--print=") {
				return a[strings.IndexByte(a, '=')+1:]
			}
		case "perl", "ruby":
			hit = !strings.HasPrefix(a, "--") && (strings.HasSuffix(a, "e") || strings.HasSuffix(a, "E"))
		}
		if hit {
			if i+1 < len(argv) {
				return argv[i+1]
			}
			return ""
		}
	}
	return ""
}

type inlineAction int

const (
	rmRecursive      inlineAction = iota // rm -r -f <path>
	rmFile                               // rm <path>
	runShell                             // the string, or the argv list, is run
	rmMaybeRecursive                     // fs.rm(p) / fs.rmSync(p): recursive only with {recursive: true}
)

type inlinePattern struct {
	re     *regexp.Regexp
	api    string // for Via: "shutil.rmtree"
	action inlineAction
}

// The patterns end where the call's first argument begins; the argument
// (a quoted string, or a list of them) is read by quotedArgs.
var inlinePatterns = map[string][]inlinePattern{
	"python": {
		// Unqualified names too: from shutil import rmtree, __import__("os").system.
		{regexp.MustCompile(`\brmtree\s*\(\s*`), "shutil.rmtree", rmRecursive},
		{regexp.MustCompile(`\b(?:remove|unlink|rmdir|removedirs)\s*\(\s*`), "os.remove", rmFile},
		{regexp.MustCompile(`\bPath\s*\(\s*`), "pathlib unlink", rmFile}, // checked for .unlink()/.rmdir() below
		{regexp.MustCompile(`\b(?:system|popen|getoutput|getstatusoutput)\s*\(\s*`), "os.system", runShell},
		{regexp.MustCompile(`\bsubprocess\s*\.\s*(?:run|call|check_call|check_output|Popen)\s*\(\s*`), "subprocess", runShell},
		{regexp.MustCompile(`\bos\s*\.\s*(?:exec|spawn)[lv]p?e?\s*\(\s*`), "os.exec", runShell},
	},
	"node": {
		{regexp.MustCompile(`\.\s*(?:rmSync|rm)\s*\(\s*`), "fs.rmSync", rmMaybeRecursive},
		{regexp.MustCompile(`\.\s*(?:rmdirSync|rmdir)\s*\(\s*`), "fs.rmdirSync", rmMaybeRecursive},
		{regexp.MustCompile(`\.\s*(?:unlinkSync|unlink)\s*\(\s*`), "fs.unlinkSync", rmFile},
		{regexp.MustCompile(`\b(?:execSync|exec|execFileSync|execFile|spawnSync|spawn)\s*\(\s*`), "child_process", runShell},
	},
	"perl": {
		{regexp.MustCompile(`\b(?:rmtree|remove_tree)\s*\(?\s*`), "rmtree", rmRecursive},
		{regexp.MustCompile(`\b(?:unlink|rmdir)\s*\(?\s*`), "unlink", rmFile},
		{regexp.MustCompile(`\b(?:system|exec)\s*\(?\s*`), "system", runShell},
	},
	"ruby": {
		{regexp.MustCompile(`\bFileUtils\s*\.\s*(?:rm_rf|rm_r|remove_dir|remove_entry|remove_entry_secure|rmtree)\s*\(?\s*`), "FileUtils.rm_rf", rmRecursive},
		{regexp.MustCompile(`\b(?:FileUtils\s*\.\s*(?:rm|rm_f|remove|remove_file)|File\s*\.\s*(?:delete|unlink)|Dir\s*\.\s*(?:delete|rmdir|unlink))\s*\(?\s*`), "File.delete", rmFile},
		{regexp.MustCompile(`\b(?:system|exec|spawn|popen|popen3|capture2|capture2e|capture3)\s*\(?\s*`), "system", runShell},
	},
}

// backtickRe finds a perl or ruby `command` (or ruby %x(...)).
var backtickRe = regexp.MustCompile("`([^`]*)`|%x\\(([^)]*)\\)")

var recursiveOptRe = regexp.MustCompile(`^\s*,\s*\{[^}]*\brecursive\s*:\s*true`)

var pathUnlinkRe = regexp.MustCompile(`^\s*\)\s*\.\s*(?:unlink|rmdir)\s*\(`)

// inline reads the code of an inline interpreter for what it runs.
func (w *walker) inline(lang, name string, argv []string, c ctx) {
	code := inlineCode(lang, argv)
	flag := "-c"
	if lang != "python" {
		flag = "-e"
	}
	if code == "" {
		if !readsStdinScript(lang, argv) {
			return
		}
		switch {
		case c.hasScript:
			code, flag = c.script, "<<EOF"
		case c.stdin != "":
			w.unresolvable("pipe_to_shell", name+" reading a script from "+c.stdin)
			return
		default:
			return // interactive
		}
	}
	for _, p := range inlinePatterns[lang] {
		for _, loc := range p.re.FindAllStringIndex(code, 32) {
			args, end := quotedArgs(code, loc[1])
			if len(args) == 0 {
				continue
			}
			via := c.through(name + " " + flag + " " + p.api)
			switch p.action {
			case rmRecursive:
				w.emit([]string{"rm", "-r", "-f", args[0]}, via)
			case rmFile:
				if p.api == "pathlib unlink" && !pathUnlinkRe.MatchString(code[end:]) {
					continue
				}
				w.emit([]string{"rm", args[0]}, via)
			case rmMaybeRecursive:
				if recursiveOptRe.MatchString(code[end:]) {
					w.emit([]string{"rm", "-r", "-f", args[0]}, via)
				} else {
					w.emit([]string{"rm", args[0]}, via)
				}
			case runShell:
				if len(args) == 1 && !strings.HasPrefix(strings.TrimSpace(code[loc[1]:]), "[") {
					w.script(args[0], name+" "+flag+" "+p.api, w.dialect, c)
				} else {
					w.emit(args, via)
				}
			}
		}
	}
	if lang == "perl" || lang == "ruby" {
		for _, m := range backtickRe.FindAllStringSubmatch(code, 32) {
			s := m[1] + m[2]
			w.script(s, name+" "+flag+" `...`", w.dialect, c)
		}
	}
}

// quotedArgs reads the quoted string literals starting at i: one string,
// strings separated by commas, or a [list] (or array) of them. It returns
// them unquoted (backslash escapes removed) and where reading stopped.
func quotedArgs(code string, i int) ([]string, int) {
	var out []string
	list := false
	if i < len(code) && (code[i] == '[' || code[i] == '(') {
		list = true
		i++
	}
	for {
		for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
			i++
		}
		// Python's r/b prefixes on a string literal.
		if i+1 < len(code) && (code[i] == 'r' || code[i] == 'b' || code[i] == 'f') && (code[i+1] == '"' || code[i+1] == '\'') {
			i++
		}
		if i >= len(code) || (code[i] != '"' && code[i] != '\'' && code[i] != '`') {
			break
		}
		q := code[i]
		var b strings.Builder
		j := i + 1
		closed := false
		for ; j < len(code); j++ {
			if code[j] == '\\' && j+1 < len(code) {
				j++
				b.WriteByte(code[j])
				continue
			}
			if code[j] == q {
				closed = true
				break
			}
			b.WriteByte(code[j])
		}
		if !closed {
			break
		}
		out = append(out, b.String())
		i = j + 1
		for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
			i++
		}
		if i < len(code) && code[i] == ',' {
			k := i + 1
			for k < len(code) && (code[k] == ' ' || code[k] == '\t') {
				k++
			}
			if k < len(code) && (code[k] == '"' || code[k] == '\'' || code[k] == '`') {
				i = k
				continue
			}
			if list && k < len(code) && code[k] == '[' {
				i = k
				continue
			}
		}
		break
	}
	if list && i < len(code) && (code[i] == ']' || code[i] == ')') {
		i++
	}
	return out, i
}

// readsStdinScript is true when an interpreter given no inline code reads
// its program from standard input: no script file, no module to run.
func readsStdinScript(lang string, argv []string) bool {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-":
			return true
		case lang == "python" && (a == "-m" || strings.HasPrefix(a, "-m")):
			return false
		case a == "-W" || a == "-X" || a == "-r" || a == "--require" || a == "--import" || a == "-I" || a == "-M":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return false // a script file
		}
	}
	return true
}
