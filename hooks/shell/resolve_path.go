package shell

import "strings"

// CleanPath cleans a target path the way the kernel would resolve it
// lexically: "//" is "/", "/." is "/", "/tmp/../" is "/", ".." at the root
// stays at the root. A leading "~" (the home directory) is kept as a
// prefix; a ".." that climbs out of it keeps the path as written ("~/.."
// stays "~/..", "~/x/../y" is "~/y").
// A trailing "/*" glob is kept, cleaned before it: "/tmp/../*" is "/*". A
// relative path stays relative ("./build" is "build", "." is ".").
func CleanPath(p string) string {
	if p == "" {
		return ""
	}
	glob := ""
	if strings.HasSuffix(p, "/*") {
		glob = "*"
		p = p[:len(p)-1]
	}
	var prefix string
	rest := p
	switch {
	case rest == "~" || strings.HasPrefix(rest, "~/"):
		prefix, rest = "~/", strings.TrimPrefix(rest, "~")
	case strings.HasPrefix(rest, "/"):
		prefix = "/"
	}
	var out []string
	for _, seg := range strings.Split(rest, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(out) > 0 && out[len(out)-1] != ".." {
				out = out[:len(out)-1]
				continue
			}
			if prefix == "~/" {
				// Above the home directory: what it reaches depends on
				// where home is, so the path is kept as written.
				return joinGlob(collapseSlashes(p), glob)
			}
			if prefix != "" {
				continue // ".." at the root is the root
			}
			out = append(out, "..")
		default:
			out = append(out, seg)
		}
	}
	joined := strings.Join(out, "/")
	var res string
	switch {
	case prefix == "/":
		res = "/" + joined
	case prefix == "~/":
		if joined == "" {
			res = "~"
		} else {
			res = "~/" + joined
		}
	case joined == "":
		res = "."
	default:
		res = joined
	}
	return joinGlob(res, glob)
}

func joinGlob(p, glob string) string {
	if glob == "" {
		return p
	}
	if strings.HasSuffix(p, "/") {
		return p + glob
	}
	if p == "." {
		return glob
	}
	return p + "/" + glob
}

func collapseSlashes(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	return p
}
