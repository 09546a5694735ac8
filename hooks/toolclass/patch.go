package toolclass

import "strings"

// patchMarkers are the apply_patch headers that name a file, as Codex's
// grammar spells them (opencode's apply_patch reads the same).
var patchMarkers = []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"}

// PatchPaths returns every path an apply_patch text names: each file it
// adds, updates, deletes, and each path a file is moved to, in order,
// once each. Leading blanks and a trailing carriage return are ignored, so
// that a patch a lenient reader accepts names no path this one misses.
func PatchPaths(patch string) []string {
	var paths []string
	seen := map[string]bool{}
	for line := range strings.SplitSeq(patch, "\n") {
		line = strings.TrimLeft(strings.TrimRight(line, "\r"), " \t")
		for _, m := range patchMarkers {
			if rest, ok := strings.CutPrefix(line, m); ok {
				if p := strings.TrimSpace(rest); p != "" && !seen[p] {
					seen[p] = true
					paths = append(paths, p)
				}
				break
			}
		}
	}
	return paths
}
