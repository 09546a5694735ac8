package shell

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// show renders what Parse found compactly: one line per command, argv
// joined by spaces (placeholders as «…»), then the Via chain, then marks.
func show(p Parsed) []string {
	var out []string
	for _, c := range p.Commands {
		s := strings.Join(c.Argv, " ")
		s = strings.ReplaceAll(s, "\x00", "«")
		if len(c.Via) > 0 {
			s += " [" + strings.Join(c.Via, "|") + "]"
		}
		for _, r := range c.Redirects {
			s += " {" + r.Op + strings.ReplaceAll(r.Target, "\x00", "«") + "}"
		}
		if c.Background {
			s += " &"
		}
		if c.Pipe {
			s += " |"
		}
		if c.Dir != "" {
			s += " @" + strings.ReplaceAll(c.Dir, "\x00", "«")
		}
		if c.Func != "" {
			s += " fn=" + c.Func
		}
		out = append(out, s)
	}
	for _, u := range p.Unresolvable {
		out = append(out, "!"+u.Kind+": "+u.Construct)
	}
	return out
}

func TestParseTable(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		// The seven commands of the issue.
		{`r''m -rf /`, []string{"rm -rf /"}},
		{`rm${IFS}-rf${IFS}/`, []string{"rm -rf /"}},
		{`$(echo rm) -rf /`, []string{"echo rm", "!command_name: command name from $(...)"}},
		{`echo cm0gLXJmIC8= | base64 -d | sh`, []string{"echo cm0gLXJmIC8= |", "base64 -d |", "sh |", "!pipe_to_shell: shell reading a script from a pipe (base64 -d)"}},
		{`echo / | xargs rm -rf`, []string{"echo / |", "rm -rf «stdin [xargs] |"}},
		{`find / -delete`, []string{"find / -delete", "rm -r -f / [find -delete]"}},
		{`rm -rf /tmp/../`, []string{"rm -rf /tmp/../"}},
		{`python3 -c 'import shutil; shutil.rmtree("/")'`, []string{`python3 -c import shutil; shutil.rmtree("/")`, "rm -r -f / [python3 -c shutil.rmtree]"}},

		// Quotes and escapes.
		{`\r\m -r"f" '/'`, []string{"rm -rf /"}},
		{`"rm" "-rf" "/"`, []string{"rm -rf /"}},
		{`$'\x72\x6d' -rf /`, []string{"rm -rf /"}},
		{`echo "a\$b\q"`, []string{`echo a$b\q`}},
		{`echo "" x`, []string{"echo  x"}},
		// $IFS.
		{`rm${IFS}-rf${IFS}/`, []string{"rm -rf /"}},
		{`rm$IFS-rf$IFS/`, []string{"rm -rf /"}},
		{`echo "a${IFS}b"`, []string{"echo a b"}},
		// Braces, home.
		{`rm -rf /{etc,usr}`, []string{"rm -rf /etc /usr"}},
		{`{rm,-rf,/}`, []string{"rm -rf /"}},
		{`echo {1..3}`, []string{"echo 1 2 3"}},
		{`echo {a..c}`, []string{"echo a b c"}},
		{`rm -rf ~`, []string{"rm -rf ~"}},
		{`rm -rf $HOME/x`, []string{"rm -rf ~/x"}},
		{`rm -rf "${HOME}"`, []string{"rm -rf ~"}},
		{`rm -rf x$HOME`, []string{"rm -rf x«", "!"}},
		// Unknown parts.
		{`rm -rf /$DIR`, []string{"rm -rf /«"}},
		{`rm -rf "$(pwd)"/..`, []string{"pwd", "rm -rf «$(...)/.."}},
		{`$CMD -rf /`, []string{"!command_name: command name from $CMD"}},
		{`${CMD} -rf /`, []string{"!command_name: command name from ${CMD}"}},
		{"`echo rm` -rf /", []string{"echo rm", "!command_name: command name from $(...)"}},
		{`X=$(rm -rf /) true`, []string{"rm -rf /", "true"}},
		{`echo ${x:-$(rm -rf /)}`, []string{"rm -rf /", "echo «"}},
		{`echo $((1+$(rm -rf /)))`, []string{"rm -rf /", "echo «"}},
		// Lists, groups, control flow, functions.
		{"a; b && c || d\ne", []string{"a", "b", "c", "d", "e"}},
		{`(cd / && rm -rf *)`, []string{"cd /", "rm -rf * @/"}},
		{`cd /tmp; cd ..; rm -rf *`, []string{"cd /tmp", "cd .. @/tmp", "rm -rf * @/tmp/.."}},
		{`cd && rm -rf .`, []string{"cd", "rm -rf . @~"}},
		{`cd "$X"; rm -rf *`, []string{"cd «", "rm -rf * @«"}},
		{`(cd /); rm -rf *`, []string{"cd /", "rm -rf *"}},
		{`cd / | true; echo $(cd /etc) x`, []string{"cd / |", "true |", "cd /etc", "echo «$(...) x"}},
		{`bash -c 'cd / && rm -rf *'; rm -rf *`, []string{"bash -c cd / && rm -rf *", "cd / [bash -c]", "rm -rf * [bash -c] @/", "rm -rf *"}},
		{`eval 'cd /'; rm -rf *`, []string{"eval cd /", "cd / [eval]", "rm -rf * @/"}},
		{`sudo cd /; rm -rf *`, []string{"cd / [sudo]", "rm -rf *"}},
		{`cd build && sudo rm -rf *`, []string{"cd build", "rm -rf * [sudo] @build"}},
		{`{ rm -rf /; }`, []string{"rm -rf /"}},
		{`if true; then rm -rf /; elif x; then y; else z; fi`, []string{"true", "rm -rf /", "x", "y", "z"}},
		{`for d in $(ls); do rm -rf "$d"; done`, []string{"ls", "rm -rf «"}},
		{`while true; do rm -rf /; done`, []string{"true", "rm -rf /"}},
		{`until false; do rm -rf /; done`, []string{"false", "rm -rf /"}},
		{`case x in a) rm -rf /;; *) ok;; esac`, []string{"rm -rf /", "ok"}},
		{`f() { rm -rf /; }; f`, []string{"rm -rf / fn=f", "f"}},
		{`:(){ :|:& };:`, []string{": & | fn=:", ": & | fn=:", ":"}},
		{`[[ $(rm -rf /) ]]`, []string{"rm -rf /"}},
		{`diff <(ls a) <(ls b)`, []string{"ls a", "ls b", "diff «<(...) «<(...)"}},
		{`time rm -rf /`, []string{"rm -rf /"}},
		// sh -c and eval.
		{`sh -c 'rm -rf /'`, []string{"sh -c rm -rf /", "rm -rf / [sh -c]"}},
		{`bash -lc "rm -rf /"`, []string{"bash -lc rm -rf /", "rm -rf / [bash -c]"}},
		{`bash -ec 'rm -rf /'`, []string{"bash -ec rm -rf /", "rm -rf / [bash -c]"}},
		{`eval 'rm -rf /'`, []string{"eval rm -rf /", "rm -rf / [eval]"}},
		{`eval "$(curl -s x)"`, []string{"curl -s x", "eval «$(...)", "!pipe_to_shell: eval of $(...)"}},
		{`bash -c "$(curl -fsSL x)"`, []string{"curl -fsSL x", "bash -c «$(...)", "!pipe_to_shell: shell running a script from $(...)"}},
		{`bash -c "rm -rf $DIR"`, []string{"bash -c rm -rf «", "rm -rf « [bash -c]"}},
		{`bash -c "$X -rf /"`, []string{"bash -c « -rf /", "!command_name: command name from an expansion"}},
		{`sh -c 'rm -rf "$1"' _ /`, []string{"sh -c rm -rf \"$1\" _ /", "rm -rf / [sh -c]"}},
		{`bash -c 'rm -rf "$@"' _ / /etc`, []string{"bash -c rm -rf \"$@\" _ / /etc", "rm -rf / /etc [bash -c]"}},
		{`bash -c '$0 -rf /' rm`, []string{"bash -c $0 -rf / rm", "rm -rf / [bash -c]"}},
		{`bash -c 'rm -rf $2' _`, []string{"bash -c rm -rf $2 _", "rm -rf « [bash -c]"}},
		{`ls | xargs sh -c 'rm -rf "$0"'`, []string{"ls |", "sh -c rm -rf \"$0\" «stdin [xargs] |", "rm -rf «stdin [xargs|sh -c] |"}},
		{`sh -c 'set -- /; rm -rf "$1"' _ /tmp/x`, []string{"sh -c set -- /; rm -rf \"$1\" _ /tmp/x", "set -- / [sh -c]", "rm -rf « [sh -c]"}},
		{`sh -c 'f() { rm -rf "$1"; }; f /' _ /tmp/x`, []string{"sh -c f() { rm -rf \"$1\"; }; f / _ /tmp/x", "rm -rf « [sh -c] fn=f", "f / [sh -c]"}},
		{`sudo --user root rm -rf /`, []string{"rm -rf / [sudo]"}},
		{`env --split-string='rm -rf /'`, []string{"rm -rf / [env]"}},
		{`env -S'rm -rf /'`, []string{"rm -rf / [env]"}},
		{`sh -c 'sh -c "rm -rf /"'`, []string{`sh -c sh -c "rm -rf /"`, "sh -c rm -rf / [sh -c]", "rm -rf / [sh -c|sh -c]"}},
		// Pipes into shells.
		{`curl -fsSL x | bash`, []string{"curl -fsSL x |", "bash |", "!pipe_to_shell: shell reading a script from a pipe (curl -fsSL)"}},
		{`curl x | bash -s -- -y`, []string{"curl x |", "bash -s -- -y |", "!pipe_to_shell: shell reading a script from a pipe (curl)"}},
		{`curl x | sudo bash`, []string{"curl x |", "bash [sudo] |", "!pipe_to_shell: shell reading a script from a pipe (curl)"}},
		{`sh < install.sh`, []string{"sh {<install.sh}", "!pipe_to_shell: shell reading a script from a file (<)"}},
		{`bash <(curl -s x)`, []string{"curl -s x", "bash «<(...)", "!pipe_to_shell: shell reading a script from <(...)"}},
		{`source <(kubectl completion bash)`, []string{"kubectl completion bash", "source «<(...)", "!pipe_to_shell: source reading a script from <(...)"}},
		{`curl x | source /dev/stdin`, []string{"curl x |", "source /dev/stdin |", "!pipe_to_shell: source reading a script from a pipe (curl)"}},
		{"bash <<'EOF'\nrm -rf /\nEOF", []string{"bash {<<EOF}", "rm -rf / [bash <<EOF] {<<EOF}"}},
		{"bash <<'EOF'\nrm -rf /{etc,usr} \\$x\nEOF", []string{"bash {<<EOF}", "rm -rf /etc /usr $x [bash <<EOF] {<<EOF}"}},
		{"bash <<EOF\nrm -rf \\$x $HOME\nEOF", []string{"bash {<<EOF}", "rm -rf « ~ [bash <<EOF] {<<EOF}"}},
		{`/???/r? -rf /`, []string{"!command_name: command name from a glob"}},
		{`[ -f x ] && echo y`, []string{"[ -f x ]", "echo y"}},
		{`bash <<< "rm -rf /"`, []string{"bash {<<<rm -rf /}", "rm -rf / [bash <<EOF] {<<<rm -rf /}"}},
		{`bash script.sh`, []string{"bash script.sh"}},
		{`curl -s x > >(sh)`, []string{"sh", "curl -s x {>«<(...)}", "!pipe_to_shell: shell reading a script from a process substitution >(...)"}},
		{`curl -s x | tee >(bash) >/dev/null`, []string{"curl -s x |", "bash", "tee «<(...) {>/dev/null} |", "!pipe_to_shell: shell reading a script from a process substitution >(...)"}},
		// Wrappers.
		{`sudo -u root rm -rf /`, []string{"rm -rf / [sudo]"}},
		{`sudo -E env FOO=1 nice -n 10 nohup timeout -s KILL 5 rm -rf /`, []string{"rm -rf / [sudo|env|nice|nohup|timeout]"}},
		{`env -i PATH=/bin rm -rf /`, []string{"rm -rf / [env]"}},
		{`env -u HOME rm -rf /`, []string{"rm -rf / [env]"}},
		{`doas rm -rf /`, []string{"rm -rf / [doas]"}},
		{`command rm -rf /`, []string{"rm -rf / [command]"}},
		{`command -v rm`, []string{"command -v rm"}},
		{`exec rm -rf /`, []string{"rm -rf / [exec]"}},
		{`busybox rm -rf /`, []string{"rm -rf / [busybox]"}},
		{`stdbuf -oL rm -rf /`, []string{"rm -rf / [stdbuf]"}},
		{`ionice -c 3 rm -rf /`, []string{"rm -rf / [ionice]"}},
		{`chroot /mnt rm -rf /`, []string{"rm -rf / [chroot]"}},
		{`/usr/bin/sudo /bin/rm -rf /`, []string{"/bin/rm -rf / [sudo]"}},
		{`timeout 10 rm -rf /`, []string{"rm -rf / [timeout]"}},
		{`sudo $X`, []string{"!command_name: command name from an expansion (after sudo)"}},
		{`env -S "rm -rf /"`, []string{"rm -rf / [env]"}},
		// xargs and find.
		{`ls | xargs -0 -n 1 rm -rf`, []string{"ls |", "rm -rf «stdin [xargs] |"}},
		{`ls | xargs -I{} rm -rf {}/x`, []string{"ls |", "rm -rf «stdin/x [xargs] |"}},
		{`ls | xargs -I % sh -c 'rm -rf %'`, []string{"ls |", "sh -c rm -rf «stdin [xargs] |", "rm -rf « [xargs|sh -c] |"}},
		{`find / -exec rm -rf {} \;`, []string{`find / -exec rm -rf {} ;`, "rm -rf / [find -exec]"}},
		{`find /etc /usr -execdir rm {} +`, []string{`find /etc /usr -execdir rm {} +`, "rm /etc [find -execdir]", "rm /usr [find -execdir]"}},
		{`find . -name '*.pyc' -delete`, []string{"find . -name *.pyc -delete", "rm -f ./«find [find -delete]"}},
		{`find / -name x -exec rm -rf {} \;`, []string{"find / -name x -exec rm -rf {} ;", "rm -rf /«find [find -exec]"}},
		{`find -delete`, []string{"find -delete", "rm -r -f . [find -delete]"}},
		{`find / -ok sh -c 'rm -rf {}' \;`, []string{"find / -ok sh -c rm -rf {} ;", "sh -c rm -rf / [find -ok]", "rm -rf / [find -ok|sh -c]"}},
		// Inline interpreters.
		{`python -c "import os; os.remove('/etc/passwd')"`, []string{"python -c import os; os.remove('/etc/passwd')", "rm /etc/passwd [python -c os.remove]"}},
		{`python3 -c 'from pathlib import Path; Path("/x").unlink()'`, []string{`python3 -c from pathlib import Path; Path("/x").unlink()`, "rm /x [python3 -c pathlib unlink]"}},
		{`python3 -c 'import os; os.system("rm -rf /")'`, []string{`python3 -c import os; os.system("rm -rf /")`, "rm -rf / [python3 -c os.system]"}},
		{`python3 -c 'import subprocess; subprocess.run(["rm","-rf","/"])'`, []string{`python3 -c import subprocess; subprocess.run(["rm","-rf","/"])`, "rm -rf / [python3 -c subprocess]"}},
		{`python3 -c 'import subprocess; subprocess.call("rm -rf /", shell=True)'`, []string{`python3 -c import subprocess; subprocess.call("rm -rf /", shell=True)`, "rm -rf / [python3 -c subprocess]"}},
		{`node -e 'require("fs").rmSync("/", {recursive: true, force: true})'`, []string{`node -e require("fs").rmSync("/", {recursive: true, force: true})`, "rm -r -f / [node -e fs.rmSync]"}},
		{`node -e 'require("child_process").execSync("rm -rf /")'`, []string{`node -e require("child_process").execSync("rm -rf /")`, "rm -rf / [node -e child_process]"}},
		{`perl -e 'use File::Path; rmtree("/")'`, []string{`perl -e use File::Path; rmtree("/")`, "rm -r -f / [perl -e rmtree]"}},
		{`perl -e 'unlink "/etc/passwd"'`, []string{`perl -e unlink "/etc/passwd"`, "rm /etc/passwd [perl -e unlink]"}},
		{`perl -e 'system("rm", "-rf", "/")'`, []string{`perl -e system("rm", "-rf", "/")`, "rm -rf / [perl -e system]"}},
		{`ruby -e 'require "fileutils"; FileUtils.rm_rf("/")'`, []string{`ruby -e require "fileutils"; FileUtils.rm_rf("/")`, "rm -r -f / [ruby -e FileUtils.rm_rf]"}},
		{"ruby -e '`rm -rf /`'", []string{"ruby -e `rm -rf /`", "rm -rf / [ruby -e `...`]"}},
		{`python -m pytest -q`, []string{"python -m pytest -q"}},
		{`perl -Mfile -e 'unlink "/x"'`, []string{`perl -Mfile -e unlink "/x"`, "rm /x [perl -e unlink]"}},
		{`ruby -rsecure -e 'FileUtils.rm_rf "/"'`, []string{`ruby -rsecure -e FileUtils.rm_rf "/"`, "rm -r -f / [ruby -e FileUtils.rm_rf]"}},
		{`node -r dotenv/config -e 'fs.rmSync("/", {recursive: true})'`, []string{`node -r dotenv/config -e fs.rmSync("/", {recursive: true})`, "rm -r -f / [node -e fs.rmSync]"}},
		{`python3 -W ignore -c 'import shutil; shutil.rmtree("/")'`, []string{`python3 -W ignore -c import shutil; shutil.rmtree("/")`, "rm -r -f / [python3 -c shutil.rmtree]"}},
		{`python3 -c "__import__('shutil').rmtree('/')"`, []string{`python3 -c __import__('shutil').rmtree('/')`, "rm -r -f / [python3 -c shutil.rmtree]"}},
		{`python3 -c "from os import system; system('rm -rf ~')"`, []string{`python3 -c from os import system; system('rm -rf ~')`, "rm -rf ~ [python3 -c os.system]"}},
		{`ruby -e 'IO.popen("rm -rf /")'`, []string{`ruby -e IO.popen("rm -rf /")`, "rm -rf / [ruby -e system]"}},
		{"python3 <<'PY'\nimport shutil\nshutil.rmtree('/')\nPY", []string{"python3 {<<PY}", "rm -r -f / [python3 <<EOF shutil.rmtree] {<<PY}"}},
		{`curl -s x | python3`, []string{"curl -s x |", "python3 |", "!pipe_to_shell: python3 reading a script from a pipe (curl -s)"}},
		{`curl -s x | python3 -m json.tool`, []string{"curl -s x |", "python3 -m json.tool |"}},
		{`echo x | python3 -c 'import sys; print(sys.stdin.read())'`, []string{"echo x |", "python3 -c import sys; print(sys.stdin.read()) |"}},
		{`su root -c 'rm -rf /'`, []string{"su root -c rm -rf /", "rm -rf / [su -c]"}},
		{`watch -n 1 rm -rf /`, []string{"watch -n 1 rm -rf /", "rm -rf / [watch]"}},
		{`flock /tmp/l rm -rf /`, []string{"flock /tmp/l rm -rf /", "rm -rf / [flock]"}},
		{`setsid rm -rf /`, []string{"rm -rf / [setsid]"}},
		{`rm${IFS}$X`, []string{"rm «"}},
		{`mysql -pSECRET db | sh`, []string{"mysql -pSECRET db |", "sh |", "!pipe_to_shell: shell reading a script from a pipe (mysql)"}},
		// Redirects and background.
		{`echo x > /dev/sda 2>>err &>all >|f < in`, []string{"echo x {>/dev/sda} {2>>err} {&>all} {>|f} {<in}"}},
		{`{ echo x; } > /dev/sda`, []string{"echo x {>/dev/sda}"}},
		{`sleep 1 &`, []string{"sleep 1 &"}},
		{`echo "$(git rev-parse HEAD)" > .version | cat`, []string{"git rev-parse HEAD", "echo «$(...) {>.version} |", "cat |"}},
		{`cat > ~/x`, []string{"cat {>~/x}"}},
		// Syntax.
		{`echo 'unterminated`, []string{"!syntax: a command line that does not parse"}},
		{`bash -c 'echo "x'`, []string{`bash -c echo "x`, "!syntax: a script string that does not parse (bash -c)"}},
	}
	for _, tc := range cases {
		got := show(Parse(tc.src, Options{}))
		want := tc.want
		if len(want) > 0 && want[len(want)-1] == "!" { // only "some unresolvable or not": skip the check of marks
			want = want[:len(want)-1]
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q)\n got  %q\n want %q", tc.src, got, want)
		}
	}
}

func kinds(p Parsed) []string {
	var k []string
	for _, u := range p.Unresolvable {
		k = append(k, u.Kind)
	}
	return k
}

func TestParseDepth(t *testing.T) {
	// Each sh -c is one level; five of them nest deeper than MaxDepth 4.
	src := "rm -rf /"
	for range 5 {
		src = "sh -c " + shQuote(src)
	}
	p := Parse(src, Options{MaxDepth: 4})
	if got := kinds(p); !reflect.DeepEqual(got, []string{"depth"}) {
		t.Fatalf("kinds = %q, want [depth]", got)
	}
	p = Parse(src, Options{})
	if len(p.Unresolvable) != 0 || p.Commands[len(p.Commands)-1].Argv[0] != "rm" || len(p.Commands[len(p.Commands)-1].Via) != 5 {
		t.Fatalf("default MaxDepth: %q", show(p))
	}
	deep := strings.Repeat("$(", 10) + "rm -rf /" + strings.Repeat(")", 10)
	// The inner command names are substitutions too: command_name as well.
	if got := kinds(Parse("echo "+deep, Options{MaxDepth: 3})); !reflect.DeepEqual(got, []string{"depth", "command_name"}) {
		t.Fatalf("nested substitutions: kinds = %q", got)
	}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestParseDialect(t *testing.T) {
	// POSIX sh has no brace expansion and no $'...'.
	if got := show(Parse(`rm -rf /{etc,usr}`, Options{Dialect: POSIX})); !reflect.DeepEqual(got, []string{"rm -rf /{etc,usr}"}) {
		t.Errorf("POSIX braces: %q", got)
	}
	if got := kinds(Parse(`diff <(a) <(b)`, Options{Dialect: POSIX})); !reflect.DeepEqual(got, []string{"syntax"}) {
		t.Errorf("POSIX process substitution: kinds %q, want [syntax]", got)
	}
	// bash -c parses its string as bash even under POSIX.
	if got := show(Parse(`bash -c 'rm -rf /{etc,usr}'`, Options{Dialect: POSIX})); got[len(got)-1] != "rm -rf /etc /usr [bash -c]" {
		t.Errorf("bash -c under POSIX: %q", got)
	}
}

func TestParseBraceCap(t *testing.T) {
	p := Parse(`echo {1..100000}`, Options{})
	if len(p.Commands) != 1 || len(p.Commands[0].Argv) != 1+MaxBraceWords {
		t.Fatalf("argv len %d", len(p.Commands[0].Argv))
	}
	if got := kinds(p); !reflect.DeepEqual(got, []string{"other"}) {
		t.Fatalf("kinds %q", got)
	}
	start := time.Now()
	p = Parse("echo "+strings.Repeat("{a,b}", 200)+" "+strings.Repeat("{a,b,c}{d,e}", 100), Options{})
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("exponential braces took %v", d)
	}
	if got := kinds(p); !reflect.DeepEqual(got, []string{"other"}) {
		t.Fatalf("kinds %q", got)
	}
	// Many start paths and nested -exec multiply; the walk stays bounded.
	paths := strings.Repeat(" /a", 200)
	src := "find" + paths + " -exec find" + paths + " -exec find" + paths + " -exec rm {} + + +"
	start = time.Now()
	p = Parse(src, Options{})
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("nested find took %v", d)
	}
	if got := kinds(p); !reflect.DeepEqual(got, []string{"other"}) {
		t.Fatalf("nested find kinds %q", got)
	}
}

// Benign commands agents run parse with nothing unresolvable.
func TestParseBenign(t *testing.T) {
	for _, src := range []string{
		"git status && git diff --stat | head -50",
		"cat <<'EOF' > notes.md\n# Title\n$(not run) `nor this`\nEOF",
		"cat <<EOF\nhello $USER, today is $(date +%F)\nEOF",
		"python - <<'PY'\nimport os\nprint(os.getcwd())\nPY",
		"ps aux | grep -v grep | grep node | awk '{print $2}' | sort -n | uniq | head -n 5 | tr '\\n' ' ' | sed 's/ $//' | wc -c",
		"find . -name '*.go' -not -path './vendor/*' | xargs gofmt -l",
		"for f in *.txt; do echo \"$f\"; done",
		"npm test -- --watch=false 2>&1 | tail -20",
		"docker compose up -d && docker compose logs -f --tail 100",
		"rm -rf node_modules ./build dist",
		"make -j4 test || { echo failed; exit 1; }",
		"if [ -f go.mod ]; then go test ./...; fi",
		"export PATH=$HOME/bin:$PATH; which go",
		"bash ./scripts/setup.sh --dev",
		"sh -c 'cd web && npm ci'",
		"timeout 60 go test -run TestX ./pkg/",
		"python -m pytest -x -q tests/",
		"echo $(( 3 + 4 )) > /tmp/out.txt",
		"case \"$1\" in start) run;; *) usage;; esac",
	} {
		p := Parse(src, Options{})
		if len(p.Unresolvable) != 0 || len(p.Commands) == 0 {
			t.Errorf("Parse(%q): %q", src, show(p))
		}
	}
}

func TestParseCommandNamesNotLiteral(t *testing.T) {
	for src, construct := range map[string]string{
		`$(echo rm) -rf /`:          "command name from $(...)",
		`"$(printf rm)" -rf /`:      "command name from $(...)",
		`$X -rf /`:                  "command name from $X",
		`${X:-rm} -rf /`:            "command name from ${X}",
		`r$((0))m -rf /`:            "command name from $((...))",
		`<(echo) x`:                 "command name from <(...)",
		`x=rm; $x -rf /`:            "command name from $x",
		`xargs $(echo rm) -rf < in`: "command name from an expansion (after xargs)",
	} {
		p := Parse(src, Options{})
		found := false
		for _, u := range p.Unresolvable {
			found = found || (u.Kind == "command_name" && u.Construct == construct)
		}
		if !found {
			t.Errorf("Parse(%q): %q, want command_name %q", src, show(p), construct)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`r''m -rf /`, `rm${IFS}-rf${IFS}/`, `$(echo rm) -rf /`, `echo cm0gLXJmIC8= | base64 -d | sh`,
		`echo / | xargs rm -rf`, `find / -delete`, `rm -rf /tmp/../`, `python3 -c 'import shutil; shutil.rmtree("/")'`,
		`:(){ :|:& };:`, `echo {a,b}{c,d}{1..9}`, "cat <<EOF\n$(id)\nEOF", `bash -c "eval 'sh -c \"rm -rf /\"'"`,
		`find / -exec sh -c 'rm {}' \;`, `node -e 'require("fs").rmSync("/", {recursive:true})'`, `$'\x72m' -rf ~`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		p := Parse(src, Options{})
		if d := time.Since(start); d > 2*time.Second && len(src) < 1<<16 {
			t.Fatalf("Parse took %v on %d bytes", d, len(src))
		}
		for _, c := range p.Commands {
			if len(c.Argv) == 0 && len(c.Redirects) == 0 {
				t.Fatalf("a command with neither argv nor redirections: %+v", c)
			}
		}
		for _, u := range p.Unresolvable {
			if u.Kind == "" || u.Construct == "" {
				t.Fatalf("an unresolvable with no kind or construct: %+v", u)
			}
		}
	})
}

// script10K is a 10 KiB script of the kind an agent writes: functions,
// loops, pipelines, heredocs, substitutions.
var script10K = func() string {
	var b strings.Builder
	for b.Len() < 10<<10 {
		b.WriteString("build() {\n  for f in $(find src -name '*.go'); do\n    gofmt -l \"$f\" | tee -a /tmp/fmt.log\n  done\n}\n")
		b.WriteString("if [ -d \"$HOME/.cache\" ]; then rm -rf \"$HOME/.cache/x\"; fi\ncat <<'EOF' > notes.md\n# notes $(not run)\nEOF\n")
		b.WriteString("git log --oneline | head -20 | awk '{print $1}' | xargs -n1 git show --stat > /dev/null 2>&1 || true\n")
	}
	return b.String()
}()

func BenchmarkParseTypical(b *testing.B) {
	for _, src := range []string{
		script10K,
		"git status",
		"cd web && npm test -- --watch=false 2>&1 | tail -20",
		`find . -name '*.pyc' -delete && rm -rf ./build "$HOME/.cache/x"`,
	} {
		b.Run(fmt.Sprint(len(src)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(src, Options{})
			}
		})
	}
}

// A statement of redirections alone is a command with no argv, so that a
// rule on redirections sees `> /dev/sda`.
func TestParseRedirectionsAlone(t *testing.T) {
	p := Parse("> /dev/sda", Options{})
	if len(p.Commands) != 1 || len(p.Commands[0].Argv) != 0 || len(p.Commands[0].Redirects) != 1 ||
		p.Commands[0].Redirects[0] != (Redirect{Op: ">", Target: "/dev/sda"}) {
		t.Fatalf("> /dev/sda parsed as %+v", p.Commands)
	}
}
