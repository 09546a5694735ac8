package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// forkBomb reports whether src defines a function that calls itself in a
// pipeline or in the background (`:(){ :|:& };:`): each call starts
// processes that each make more, until the machine runs out. A plain
// recursive function forks nothing and is not one.
func forkBomb(src string, d Dialect) bool {
	if !strings.Contains(src, "(") && !strings.Contains(src, "function") {
		return false
	}
	lang := syntax.LangBash
	if d == POSIX {
		lang = syntax.LangPOSIX
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
	if err != nil {
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if found {
			return false
		}
		fd, ok := n.(*syntax.FuncDecl)
		if !ok || fd.Name == nil || fd.Body == nil {
			return true
		}
		if forksItself(fd.Body, fd.Name.Value) {
			found = true
			return false
		}
		return true
	})
	return found
}

// forksItself reports whether body calls name inside a pipeline or a
// backgrounded statement.
func forksItself(body *syntax.Stmt, name string) bool {
	found := false
	syntax.Walk(body, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Background && callsName(x, name) {
				found = true
			}
		case *syntax.BinaryCmd:
			if (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && (callsName(x.X, name) || callsName(x.Y, name)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// callsName reports whether n holds a simple command named name.
func callsName(n syntax.Node, name string) bool {
	found := false
	syntax.Walk(n, func(m syntax.Node) bool {
		if c, ok := m.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == name {
			found = true
		}
		return !found
	})
	return found
}
