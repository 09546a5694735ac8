package shell

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// DefaultProtected are the paths a recursive delete, chmod or chown must
// not reach when a guard names none of its own. An entry may be a glob
// ("/lib*" covers /lib, /lib32, /lib64).
var DefaultProtected = []string{
	"/", Home, "/etc", "/usr", "/var", "/boot", "/home", "/bin", "/sbin", "/lib*",
	"/opt", "/root", "/srv", "/sys", "/proc", "/dev",
	"/Users", "/System", "/Library", "/Applications", "/private",
}

// protectedSet is a guard's protected paths, each cleaned the way a target
// is.
type protectedSet struct {
	entries []string
	reps    [][]string // representatives of each entry
}

func newProtectedSet(paths []string, workspace string) protectedSet {
	var ps protectedSet
	add := func(p string) {
		p = cleanTarget(homeWord(p))
		for _, e := range ps.entries {
			if e == p {
				return
			}
		}
		ps.entries = append(ps.entries, p)
		ps.reps = append(ps.reps, representatives(p))
	}
	for _, p := range paths {
		add(p)
	}
	if workspace != "" {
		add(workspace)
	}
	return ps
}

// homeWord spells $HOME and ${HOME} at the start of a configured path the
// way a resolved word spells the home directory.
func homeWord(p string) string {
	for _, h := range []string{"${HOME}", "$HOME"} {
		if rest, ok := strings.CutPrefix(p, h); ok {
			return Home + rest
		}
	}
	return p
}

// cleanTarget cleans a path as the kernel would resolve it lexically:
// "/tmp/../" is "/", "//" is "/", "~/" is "~". A path that climbs out of
// the home directory ("~/..") reads as "/home", the parent of a home
// directory, which is protected whenever /home is.
func cleanTarget(p string) string {
	if p == "" {
		return p
	}
	if p == Home || strings.HasPrefix(p, Home+"/") {
		const root = "/\x00home"
		c := path.Clean(root + p[len(Home):])
		switch {
		case c == root:
			return Home
		case strings.HasPrefix(c, root+"/"):
			return Home + c[len(root):]
		}
		return "/home"
	}
	return path.Clean(p)
}

// hasGlob reports whether a word holds a glob metacharacter a shell would
// expand.
func hasGlob(w string) bool { return strings.ContainsAny(w, "*?[") }

// match returns the protected entry the cleaned target t is or covers,
// and whether it was reached through a glob.
func (ps protectedSet) match(t string) (entry string, ok bool) {
	if t == "" {
		return "", false
	}
	// An only-climbing relative path ("..", "../..") is an ancestor of the
	// working directory: a directory holding the work, never a thing to
	// delete wholesale.
	if strings.Trim(t, "./") == "" && strings.Contains(t, "..") {
		return "..", true
	}
	glob := hasGlob(t)
	for i, e := range ps.entries {
		eGlob := hasGlob(e)
		switch {
		case !glob && !eGlob:
			if t == e {
				return e, true
			}
			// An ancestor holds what it protects: /work holds the
			// workspace /work/repo.
			if strings.HasPrefix(t, "/") && strings.HasPrefix(e, t+"/") {
				return t + " (which holds " + e + ")", true
			}
		case !glob && eGlob:
			if ok, _ := path.Match(e, t); ok {
				return e, true
			}
		default:
			// A target glob covers e when it matches e, or a
			// representative of a glob entry, or every entry inside
			// e ("/etc/*", "~/*").
			for _, r := range ps.reps[i] {
				if ok, err := path.Match(t, r); err == nil && ok {
					return e, true
				}
			}
			if dir, base := path.Split(t); strings.Trim(base, "*") == "" && !hasGlob(dir) {
				d := strings.TrimSuffix(dir, "/")
				if d == "" {
					d = "/"
				}
				if d == e || (eGlob && globOK(e, d)) {
					return e, true
				}
			}
		}
	}
	return "", false
}

// globOK reports whether s matches pattern; a bad pattern matches
// nothing.
func globOK(pattern, s string) bool {
	if !hasGlob(pattern) {
		return pattern == s
	}
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

// representatives are concrete paths a protected glob entry stands for,
// for matching a target glob against it: "/lib*" stands for /lib and
// /lib64.
func representatives(e string) []string {
	if !hasGlob(e) {
		return []string{e}
	}
	return []string{globBare.Replace(e), globWide.Replace(e)}
}

// The replacers of representatives, built once: a strings.Replacer costs
// more to build than to use.
var (
	globBare = strings.NewReplacer("*", "", "?", "x")
	globWide = strings.NewReplacer("*", "64", "?", "x")
)

// isUnknown reports whether w holds a part whose value is not known
// statically. "{}" is find's name for what it found, should it reach a
// rule unsubstituted.
func isUnknown(w string) bool {
	return strings.IndexByte(w, 0) >= 0 || w == "{}"
}

// mayBeProtected reports whether a word with unknown parts could, for some
// value of them, name a protected path: the unknown parts stand for any
// text, slashes included, and a word that climbs ("..") could be
// anywhere. A word that is not UTF-8 is read as one that may be.
func (ps protectedSet) mayBeProtected(w string) bool {
	if w == "{}" || climbs(w) || !utf8.ValidString(w) {
		return true
	}
	pat, ok := compileUnknownPattern(w)
	if !ok {
		// Unknown, but no part we can read: any value.
		return true
	}
	for _, reps := range ps.reps {
		for _, r := range reps {
			if pat.matches(r) || (r == Home && pat.matches("/home/u")) {
				return true
			}
		}
	}
	return false
}

// climbs reports whether a path has a ".." segment.
func climbs(w string) bool {
	for seg := range strings.SplitSeq(w, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// blockDevice matches the paths of block devices: disks, partitions,
// volumes.
var blockDevice = regexp.MustCompile(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|md|dm-|loop|nbd|rdisk|disk|sr|mapper/|disk/)`)

// isBlockDevice reports whether a (cleaned) path is a block device.
func isBlockDevice(p string) bool { return blockDevice.MatchString(p) }
