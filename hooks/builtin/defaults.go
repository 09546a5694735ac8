package builtin

import "regexp"

// DefaultPatternSets are the shipped pattern sets of deny_patterns,
// selected with `with: {defaults: [shell, sql]}`. They aim at commands that
// destroy a machine or a database wholesale; they are a floor, not a
// complete policy, and accept some false positives on purpose.
var DefaultPatternSets = map[string][]Pattern{
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

func p(label, re string) Pattern { return Pattern{Label: label, Re: regexp.MustCompile(re)} }
