package shell

import (
	"reflect"
	"strings"
	"testing"
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
			s += " {" + r.Op + r.Target + "}"
		}
		if c.Background {
			s += " &"
		}
		if c.Pipe {
			s += " |"
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
		{`(cd / && rm -rf *)`, []string{"cd /", "rm -rf *"}},
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
		{`bash <<< "rm -rf /"`, []string{"bash {<<<rm -rf /}", "rm -rf / [bash <<EOF] {<<<rm -rf /}"}},
		{`bash script.sh`, []string{"bash script.sh"}},
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
		// Redirects and background.
		{`echo x > /dev/sda 2>>err &>all >|f < in`, []string{"echo x {>/dev/sda} {2>>err} {&>all} {>|f} {<in}"}},
		{`{ echo x; } > /dev/sda`, []string{"echo x {>/dev/sda}"}},
		{`sleep 1 &`, []string{"sleep 1 &"}},
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
