package builtin

import "regexp"

// DefaultPatternSets are the shipped pattern sets of deny_patterns,
// selected with `with: {defaults: [shell, sql]}`. shell and sql aim at
// commands that destroy a machine or a database wholesale; they are a
// floor, not a complete policy, and accept some false positives on
// purpose. recursive_delete is the strict, opt-in set: recursive or forced
// deletion of anything anywhere (rm -r ./build too), and a shell started
// to be typed into (see InteractiveShellRule).
var DefaultPatternSets = map[string][]Pattern{
	"recursive_delete": {
		// rm (git rm too) with -r, -R, --recursive among its arguments,
		// alone or in a cluster (-rf, -fR), whatever the target.
		p("rm-recursive", `(?:^|[\s;&|('"\x60/])rm\s(?:[^\n;&|]*\s)?(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive)(?:\s|$|[;&|)"'])`),
		p("find-delete", `\bfind\b[^\n;&|]*\s-delete\b|\bfind\b[^\n;&|]*\s-exec(?:dir)?\s+(?:\S*/)?(?:rm|shred|unlink)\b`),
		p("git-clean-force", `\bgit\b[^\n;&|]*\sclean\b[^\n;&|]*\s(?:-[A-Za-z]*f[A-Za-z]*|--force)(?:\s|$)`),
		p("shred", `\b(?:shred|srm|wipefs)\b`),
		p("rsync-delete", `\brsync\b[^\n;&|]*\s--delete`),
		p("mv-to-dev-null", `\bmv\b[^\n;&|]*\s/dev/null(?:\s|$)`),
		// The same from a script: Python's shutil.rmtree, Node's rimraf
		// and fs.rm(..., {recursive: true}).
		p("rmtree", `\brmtree\b|\brimraf\b|\b(?:rm|rmSync|rmdir|rmdirSync)\([^)]*recursive\s*:\s*true`),
	},
	"shell": {
		// rm of the root, the root's contents or the home directory, with
		// any flags: rm -rf /, rm -fr /*, rm -r -f ~, rm -rf "$HOME".
		p("rm-root", `\brm(?:\s+-{1,2}[A-Za-z-]+)*\s+["']?(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/\*)["']?(?:\s|$|[;&|)])`),
		p("rm-no-preserve-root", `\brm\b[^\n;&|]*--no-preserve-root`),
		// rm -r of a top-level system directory.
		p("rm-system-dir", `\brm(?:\s+-{1,2}[A-Za-z-]+)*\s+-{1,2}[A-Za-z-]*[rR][A-Za-z-]*(?:\s+-{1,2}[A-Za-z-]+)*\s+["']?/(?:bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var)/?\*?["']?(?:\s|$|[;&|)])`),
		p("mkfs", `\bmkfs(?:\.[A-Za-z0-9]+)?\b`),
		p("dd", `\bdd\s+(?:[^\n;&|]*\s)?if=`),
		p("fork-bomb", `:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\b([A-Za-z_]\w*)\s*\(\s*\)\s*\{\s*[A-Za-z_]\w*\s*\|\s*[A-Za-z_]\w*\s*&\s*\}`),
		p("chmod-777-root", `\bchmod\s+(?:[^\n;&|]*\s)?(?:-[A-Za-z]*R[A-Za-z]*|--recursive)\s+(?:[^\n;&|]*\s)?0?777\s+["']?/\*?["']?(?:\s|$|[;&|)])|\bchmod\s+(?:[^\n;&|]*\s)?0?777\s+(?:[^\n;&|]*\s)?(?:-[A-Za-z]*R[A-Za-z]*|--recursive)\s+["']?/\*?["']?(?:\s|$|[;&|)])`),
		p("write-block-device", `>\s*/dev/(?:sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk\d)`),
	},
	"sql": {
		p("drop-table", `(?i)\bdrop\s+table\b`),
		p("drop-database", `(?i)\bdrop\s+(?:database|schema)\b`),
		p("truncate", `(?i)\btruncate\s+(?:table\s+)?[A-Za-z_"\x60\[]`),
		// DELETE FROM t with nothing but an optional alias before the end
		// of the statement: no WHERE clause.
		p("delete-without-where", `(?i)\bdelete\s+from\s+[\w."\x60\[\]]+(?:\s+(?:as\s+)?\w+)?\s*(?:;|\z)`),
	},
}

// InteractiveShellRule names the rule of recursive_delete that blocks a
// call starting a shell that reads its commands from the session (Codex's
// exec_command {"cmd": "bash", "tty": true}): what is typed into it later
// is judged line by line, but a policy that wants no recursive delete
// wants no shell it cannot see whole either.
const InteractiveShellRule = "interactive-shell"

// blocksInteractiveShell lists the sets that carry InteractiveShellRule.
var blocksInteractiveShell = map[string]bool{"recursive_delete": true}

func p(label, re string) Pattern { return Pattern{Label: label, Re: regexp.MustCompile(re)} }
