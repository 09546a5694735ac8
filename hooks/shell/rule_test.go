package shell

import (
	"strings"
	"testing"
)

// ruleOf returns the shipped rule labelled label.
func ruleOf(t *testing.T, set, label string) *Rule {
	t.Helper()
	for i := range RuleSets[set] {
		if RuleSets[set][i].Label == label {
			return &RuleSets[set][i]
		}
	}
	t.Fatalf("no rule %s in %s", label, set)
	return nil
}

func TestFlagSpellings(t *testing.T) {
	ps := newProtectedSet(DefaultProtected, "/work/repo")
	rm := ruleOf(t, "default", "rm-recursive-protected")
	for _, argv := range []string{
		"rm -rf /", "rm -fr /", "rm -r -f /", "rm -R /", "rm --recursive --force /", "rm --recur /",
		"/bin/rm -Rf /etc", "rm / -rf", "rm -rf -- /", "rm -rvf /usr", "rm -rf /work/repo", "rm -rf /work/repo/", "rm -rf /work/repo/..", "rm -rf /work",
	} {
		if _, ok := rm.match(&Command{Argv: strings.Fields(argv)}, ps); !ok {
			t.Errorf("%q not matched", argv)
		}
	}
	for _, argv := range []string{
		"rm -f /", "rm -rf node_modules", "rm -rf ./build", "rm -rf /tmp/x", "rm -rf /etc/nginx/conf.d/x",
		"rm --force /", "rm -rf -- -r", "rm -rf /work/repo/build",
	} {
		if m, ok := rm.match(&Command{Argv: strings.Fields(argv)}, ps); ok {
			t.Errorf("%q matched: %+v", argv, m)
		}
	}
}

func TestProtectedGlobsAndCleaning(t *testing.T) {
	ps := newProtectedSet(DefaultProtected, "")
	for w, want := range map[string]string{
		"/": "/", "//": "/", "/tmp/../": "/", "/./etc/": "/etc", "~": "~", "~/": "~", "~/..": "/home",
		"/*": "/", "/e*": "/etc", "/?tc": "/etc", "/lib64": "/lib*", "/l*": "/lib*", "/etc/*": "/etc",
		"~/*": "~", "/home/*": "/home", "..": "..", "../..": "..", "/[eu]*": "/etc",
	} {
		got, ok := ps.match(cleanTarget(w))
		if !ok || got != want {
			t.Errorf("%q: got %q %v, want %q", w, got, ok, want)
		}
	}
	for _, w := range []string{"./build", "node_modules", "/tmp/x", "/etc/nginx", "~/project", "/home/alice/x", "/tmp/*", "*.pyc", "../sibling"} {
		if got, ok := ps.match(cleanTarget(w)); ok {
			t.Errorf("%q matched %q", w, got)
		}
	}
	for w, want := range map[string]bool{"\x00": true, "\x00/": true, "\x00tc": true, "\x00stdin": true, "\x00$(...)/build": false, "/tmp/\x00": false, "\x00/..": true, "{}": true, "\x00find": true, "\x00/*": true, "\x00/[e]tc": true, "\x00/[x]y.log": false} {
		if got := ps.mayBeProtected(w); got != want {
			t.Errorf("mayBeProtected(%q) = %v", w, got)
		}
	}
}

func TestSubcommandsAndTargets(t *testing.T) {
	ps := newProtectedSet(DefaultProtected, "")
	cases := []struct {
		set, label, argv string
		want             bool
	}{
		{"git", "git-push-force-protected", "git push --force origin main", true},
		{"git", "git-push-force-protected", "git -C repo push -f origin HEAD:refs/heads/release-2", true},
		{"git", "git-push-force-protected", "git push --force-with-lease", true},
		{"git", "git-push-force-protected", "git push --force origin feature", false},
		{"git", "git-push-force-protected", "git push origin main", false},
		{"git", "git-clean-force", "git clean -fdx", true},
		{"git", "git-clean-force", "git clean -f -x", true},
		{"git", "git-clean-force", "git clean -f", false},
		{"git", "git-clean-force", "git clean -n -d", false},
		{"git", "git-reset-hard", "git reset --hard HEAD~1", true},
		{"git", "git-reset-hard", "git reset --soft HEAD~1", false},
		{"cloud", "kubectl-delete-namespace", "kubectl -n x delete ns prod", true},
		{"cloud", "kubectl-delete-namespace", "kubectl delete namespace/prod", true},
		{"cloud", "kubectl-delete-namespace", "kubectl delete pod x", false},
		{"cloud", "terraform-destroy", "terraform -chdir=infra destroy -auto-approve", true},
		{"cloud", "terraform-apply-destroy", "terraform apply -destroy", true},
		{"cloud", "terraform-apply-destroy", "terraform apply", false},
		{"cloud", "aws-s3-rb-force", "aws s3 rb s3://b --force", true},
		{"cloud", "aws-s3-rb-force", "aws s3 rb s3://b", false},
		{"cloud", "gcloud-projects-delete", "gcloud projects delete p", true},
		{"default", "mkfs", "mkfs.ext4 /dev/sda1", true},
		{"default", "write-block-device", "dd if=/dev/zero of=/dev/nvme0n1 bs=1M", true},
		{"default", "write-block-device", "dd if=/dev/sda of=disk.img", false},
		{"default", "write-block-device", "shred -n1 /dev/sd*", true},
		{"default", "chmod-recursive-protected", "chmod -R 777 /", true},
		{"default", "chmod-recursive-protected", "chmod -r /etc", false},
		{"default", "chown-recursive-protected", "chown --recursive u:g /usr", true},
		{"default", "chown-recursive-protected", "chown -R / ./x", false},
		{"default", "chmod-recursive-protected", "chmod -R --reference=a /etc", true},
		{"default", "find-delete-protected", "find / -name x -delete", true},
		{"default", "find-delete-protected", "find . -name *.pyc -delete", false},
	}
	for _, c := range cases {
		m, ok := ruleOf(t, c.set, c.label).match(&Command{Argv: strings.Fields(c.argv)}, ps)
		if ok && m.unknown {
			ok = false
		}
		if ok != c.want {
			t.Errorf("%s %q: matched %v, want %v", c.label, c.argv, ok, c.want)
		}
	}
	redirect := ruleOf(t, "default", "redirect-block-device")
	if _, ok := redirect.match(&Command{Argv: []string{"echo", "x"}, Redirects: []Redirect{{Op: ">", Target: "/dev/sda"}}}, ps); !ok {
		t.Error("> /dev/sda not matched")
	}
	for _, rd := range []Redirect{{Op: ">", Target: "/dev/null"}, {Op: "<", Target: "/dev/sda"}, {Op: "2>", Target: "/dev/stderr"}} {
		if _, ok := redirect.match(&Command{Argv: []string{"echo"}, Redirects: []Redirect{rd}}, ps); ok {
			t.Errorf("%+v matched", rd)
		}
	}
}

func TestForkBomb(t *testing.T) {
	g := newGuard(t, GuardConfig{})
	for _, src := range []string{":(){ :|:& };:", "bomb(){ bomb|bomb& }; bomb", "function f { f | f & }; f", "f() { f & }; f", "sh -c 'x(){ x|x& };x'"} {
		if v := g.Judge(src); v.Decision != Block || v.Rule != forkBombLabel {
			t.Errorf("%q: %+v", src, v)
		}
	}
	for _, src := range []string{"f(){ echo hi; }; f", "f(){ f; }", "g(){ f | f & }", "ls | grep x &"} {
		if v := g.Judge(src); v.Decision != Allow {
			t.Errorf("%q: %+v", src, v)
		}
	}
}
