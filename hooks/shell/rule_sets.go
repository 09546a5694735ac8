package shell

// Flag spellings the shipped rules share.
var (
	flagRecursive      = []string{"-r", "-R", "--recursive"}
	flagRecursiveUpper = []string{"-R", "--recursive"} // chmod, chown: -r is not recursive
	flagForce          = []string{"-f", "--force"}
)

// RuleSets are the shipped rule sets by name. DefaultSets are on unless a
// guard names its own; the others are opt-in.
var RuleSets = map[string][]Rule{
	"default": {
		{Label: "rm-recursive-protected", Commands: []string{"rm"}, Flags: [][]string{flagRecursive}, Targets: TargetProtected},
		{Label: "find-delete-protected", Commands: []string{"find"}, Flags: [][]string{{"-delete"}}, Targets: TargetProtected},
		{Label: "mkfs", Commands: []string{"mkfs*", "mke2fs", "mkswap"}},
		{Label: "wipefs", Commands: []string{"wipefs"}},
		{Label: "write-block-device", Commands: []string{"dd", "shred", "tee", "cp", "blkdiscard"}, Targets: TargetBlockDevice},
		{Label: "redirect-block-device", Redirects: true, Targets: TargetBlockDevice},
		{Label: "chmod-recursive-protected", Commands: []string{"chmod"}, Flags: [][]string{flagRecursiveUpper}, Targets: TargetProtected},
		{Label: "chown-recursive-protected", Commands: []string{"chown", "chgrp"}, Flags: [][]string{flagRecursiveUpper}, Targets: TargetProtected},
	},
	"git": {
		{Label: "git-push-force-protected", Commands: []string{"git"}, Subcommands: []string{"push"},
			Flags: [][]string{{"-f", "--force", "--force-with-lease", "--force-if-includes"}}, Targets: TargetBranch,
			Branches: []string{"main", "master", "release*"}},
		{Label: "git-clean-force", Commands: []string{"git"}, Subcommands: []string{"clean"},
			Flags: [][]string{flagForce, {"-d", "-x"}}},
		{Label: "git-reset-hard", Commands: []string{"git"}, Subcommands: []string{"reset"}, Flags: [][]string{{"--hard"}}},
	},
	"cloud": {
		{Label: "kubectl-delete-namespace", Commands: []string{"kubectl", "oc"}, Subcommands: []string{"delete namespace", "delete namespaces", "delete ns"}},
		{Label: "terraform-destroy", Commands: []string{"terraform", "tofu"}, Subcommands: []string{"destroy"}},
		{Label: "terraform-apply-destroy", Commands: []string{"terraform", "tofu"}, Subcommands: []string{"apply"}, Flags: [][]string{{"-destroy", "--destroy"}}},
		{Label: "aws-s3-rb-force", Commands: []string{"aws"}, Subcommands: []string{"s3 rb"}, Flags: [][]string{{"--force"}}},
		{Label: "gcloud-projects-delete", Commands: []string{"gcloud"}, Subcommands: []string{"projects delete"}},
	},
}

// DefaultSets are the rule sets a guard uses when it names none.
var DefaultSets = []string{"default"}

// forkBombLabel is the label of the fork-bomb rule, part of the default
// set (it is found in where a command stands, not in its words).
const forkBombLabel = "fork-bomb"
