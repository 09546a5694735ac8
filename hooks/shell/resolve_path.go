package shell

import "strings"

// CleanPath cleans a target path the way the kernel would resolve it
// lexically: "//" is "/", "/." is "/", "/tmp/../" is "/", ".." at the root
// stays at the root. A leading "~" (the home directory) is kept as a
// root-like prefix and ".." never climbs out of it, so "~/.." stays "~/..".
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
		// Home is not resolved: keep "~/.." literally, since what it
		// reaches depends on the home directory.
		if strings.Contains(rest, "..") {
			return joinGlob(collapseSlashes(rest), glob)
		}
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
