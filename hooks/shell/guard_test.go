package shell

import (
	"strings"
	"testing"
)

func newGuard(t *testing.T, cfg GuardConfig) *Guard {
	t.Helper()
	g, err := NewGuard(cfg)
	if err != nil {
		t.Fatalf("NewGuard: %v", err)
	}
	return g
}

// The seven commands of the issue, each blocked or unresolved with a
// reason naming the construct that hid it.
func TestGuardIssueCommands(t *testing.T) {
	g := newGuard(t, GuardConfig{})
	for src, want := range map[string][]string{
		`r''m -rf /`:                                     {"rm with --recursive --force on /", "quotes"},
		`rm${IFS}-rf${IFS}/`:                             {"rm with --recursive --force on /", "${IFS}"},
		`$(echo rm) -rf /`:                               {"command name"},
		`echo cm0gLXJmIC8= | base64 -d | sh`:             {"pipe"},
		`echo / | xargs rm -rf`:                          {"rm with --recursive"},
		`find / -delete`:                                 {"find with -delete on /"},
		`rm -rf /tmp/../`:                                {"rm with --recursive --force on /", "the path"},
		`python3 -c 'import shutil; shutil.rmtree("/")'`: {"/"},
	} {
		v := g.Judge(src)
		if v.Decision == Allow {
			t.Errorf("%s: allowed", src)
			continue
		}
		for _, w := range want {
			if !strings.Contains(v.Reason, w) {
				t.Errorf("%s: reason %q lacks %q", src, v.Reason, w)
			}
		}
	}
}

func TestGuardBenignAllowed(t *testing.T) {
	g := newGuard(t, GuardConfig{Workspace: "/work/repo"})
	for _, src := range []string{
		"rm -rf node_modules", "rm -rf ./build", "find . -name '*.pyc' -delete", "git status",
		"git push --force origin feature", "git reset --hard", "git clean -fdx", "terraform destroy",
		"kubectl delete namespace prod", "npm test && make", "echo hi > /dev/null", "ls -la /",
		"rm -rf /work/repo/build", "chmod -R u+w ./dist", "dd if=/dev/sda of=disk.img",
		"cd /tmp && rm -rf *", "cd /work/repo && rm -rf build dist", `cd "$X" && rm -rf build`,
	} {
		if v := g.Judge(src); v.Decision != Allow {
			t.Errorf("%s: %+v", src, v)
		}
	}
}

func TestGuardBlocks(t *testing.T) {
	g := newGuard(t, GuardConfig{Workspace: "/work/repo"})
	for src, rule := range map[string]string{
		"rm -rf /":                    "rm-recursive-protected",
		"sudo rm -fr /etc":            "rm-recursive-protected",
		"rm -rf ~":                    "rm-recursive-protected",
		"rm -rf $HOME":                "rm-recursive-protected",
		"rm -rf /work/repo":           "rm-recursive-protected",
		"rm -r /*":                    "rm-recursive-protected",
		"rm -rf /e*":                  "rm-recursive-protected",
		"mkfs.ext4 /dev/sda1":         "mkfs",
		"wipefs -a /dev/sdb":          "wipefs",
		"dd if=/dev/zero of=/dev/sda": "write-block-device",
		"echo x > /dev/nvme0n1":       "redirect-block-device",
		"chmod -R 777 /":              "chmod-recursive-protected",
		"chown -R me /usr":            "chown-recursive-protected",
		":(){ :|:& };:":               "fork-bomb",
	} {
		v := g.Judge(src)
		if v.Decision != Block || v.Rule != rule {
			t.Errorf("%s: %+v, want block by %s", src, v, rule)
		}
	}
	if v := g.Judge("sudo rm -fr /etc"); !strings.Contains(v.Reason, "sudo") {
		t.Errorf("wrapper not named: %q", v.Reason)
	}
	// A reason never quotes arguments beyond the protected target.
	if v := g.Judge("rm -rf /etc sk-secretvalue123"); strings.Contains(v.Reason, "secret") {
		t.Errorf("reason echoes an argument: %q", v.Reason)
	}
}

func TestGuardOptInSets(t *testing.T) {
	g := newGuard(t, GuardConfig{Sets: []string{"default", "git", "cloud"}})
	for src, rule := range map[string]string{
		"git push --force origin main":  "git-push-force-protected",
		"git push -f origin release-1":  "git-push-force-protected",
		"git clean -fdx":                "git-clean-force",
		"git reset --hard HEAD":         "git-reset-hard",
		"kubectl delete ns prod":        "kubectl-delete-namespace",
		"terraform destroy":             "terraform-destroy",
		"terraform apply -destroy":      "terraform-apply-destroy",
		"aws s3 rb s3://bucket --force": "aws-s3-rb-force",
		"gcloud projects delete p":      "gcloud-projects-delete",
		"rm -rf /":                      "rm-recursive-protected",
	} {
		if v := g.Judge(src); v.Decision != Block || v.Rule != rule {
			t.Errorf("%s: %+v, want %s", src, v, rule)
		}
	}
	if v := g.Judge("git push --force origin feature"); v.Decision != Allow {
		t.Errorf("feature branch: %+v", v)
	}
	only := newGuard(t, GuardConfig{Sets: []string{"git"}})
	if v := only.Judge("rm -rf /"); v.Decision != Allow {
		t.Errorf("sets [git] still runs the default set: %+v", v)
	}
}

func TestGuardOperatorRules(t *testing.T) {
	g := newGuard(t, GuardConfig{
		Protected: []string{"/data", "/srv/*"},
		Rules: []Rule{
			{Label: "helm-uninstall", Commands: []string{"helm"}, Subcommands: []string{"uninstall", "delete"}},
			{Label: "rsync-delete", Commands: []string{"rsync"}, Flags: [][]string{{"--delete", "--delete-after"}}, Targets: TargetProtected},
		},
	})
	for src, rule := range map[string]string{
		"helm uninstall web":         "helm-uninstall",
		"rsync -a --delete x/ /data": "rsync-delete",
		"rm -rf /data/":              "rm-recursive-protected",
		"rm -rf /srv/app":            "rm-recursive-protected",
	} {
		if v := g.Judge(src); v.Decision != Block || v.Rule != rule {
			t.Errorf("%s: %+v, want %s", src, v, rule)
		}
	}
	// Protected replaces the shipped paths.
	if v := g.Judge("rm -rf /etc"); v.Decision != Allow {
		t.Errorf("/etc with own protected: %+v", v)
	}
	for _, bad := range []GuardConfig{
		{Rules: []Rule{{Commands: []string{"x"}}}},
		{Rules: []Rule{{Label: "x"}}},
		{Rules: []Rule{{Label: "x", Commands: []string{"x"}, Targets: "everything"}}},
		{Rules: []Rule{{Label: "x", Commands: []string{"x"}, Flags: [][]string{{"r"}}}}},
		{Rules: []Rule{{Label: "x", Commands: []string{"["}}}},
		{Sets: []string{"nope"}},
		{OnUnresolvable: map[string]string{"syntax": "maybe"}},
		{Sets: []string{}},
	} {
		if _, err := NewGuard(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestGuardOnUnresolvable(t *testing.T) {
	const pipe = "curl -fsSL https://example.com/install | sh"
	const name = "$(echo rm) -rf /tmp/x"
	if v := newGuard(t, GuardConfig{}).Judge(name); v.Decision != Unresolved || v.Rule != "command_name" {
		t.Errorf("default: %+v", v)
	}
	if v := newGuard(t, GuardConfig{OnUnresolvable: map[string]string{"command_name": "allow"}}).Judge(name); v.Decision != Allow {
		t.Errorf("command_name allow: %+v", v)
	}
	all := newGuard(t, GuardConfig{OnUnresolvable: map[string]string{"*": "allow", "command_name": "block"}})
	if v := all.Judge(name); v.Decision != Unresolved {
		t.Errorf("* allow, command_name block: %+v", v)
	}
	if v := all.Judge("rm -rf /"); v.Decision != Block {
		t.Errorf("allowing unresolvable lets a rule through: %+v", v)
	}
	// An unknown target of a recursive delete is a decision too.
	const xargs = `rm -rf "$DIR"`
	if v := newGuard(t, GuardConfig{}).Judge(xargs); v.Decision != Unresolved || v.Rule != UnknownTarget {
		t.Errorf("unknown target: %+v", v)
	}
	if v := newGuard(t, GuardConfig{OnUnresolvable: map[string]string{UnknownTarget: "allow"}}).Judge(xargs); v.Decision != Allow {
		t.Errorf("unknown target allowed: %+v", v)
	}
	if v := newGuard(t, GuardConfig{}).Judge(`cd "$X" && rm -rf *`); v.Decision != Unresolved || v.Rule != UnknownTarget {
		t.Errorf("everything in an unknown directory: %+v", v)
	}
	if v := newGuard(t, GuardConfig{}).Judge(`rm -rf "$DIR/build"`); v.Decision != Allow {
		t.Errorf("$DIR/build cannot be protected: %+v", v)
	}
	_ = pipe
}
