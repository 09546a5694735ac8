package config

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one thing wrong with a configuration, with its place.
type Problem struct {
	File string
	Line int
	Path string // e.g. upstreams[0].base_url
	Msg  string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Error lists every problem found in a configuration, in file order.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("invalid configuration (%d problem(s)):\n  %s", len(e.Problems), strings.Join(lines, "\n  "))
}

// problems collects Problems while a file is checked.
type problems struct {
	file string
	list []Problem
	// unread are lines whose value could not be read (a type error, an
	// unset environment variable): the later checks of such a value would
	// only restate that problem, so they are not reported.
	unread map[int]bool
}

func (ps *problems) add(line int, path, format string, args ...any) {
	if line > 0 && ps.unread[line] {
		return
	}
	ps.list = append(ps.list, Problem{File: ps.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// addUnread reports a value that could not be read, once per line, and
// marks its line so that checks of the value it left behind stay quiet.
func (ps *problems) addUnread(line int, path, format string, args ...any) {
	p := Problem{File: ps.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)}
	for _, q := range ps.list {
		if q.Line == p.Line && q.Msg == p.Msg {
			return
		}
	}
	ps.list = append(ps.list, p)
	if line > 0 {
		if ps.unread == nil {
			ps.unread = map[int]bool{}
		}
		ps.unread[line] = true
	}
}

func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	sort.SliceStable(ps.list, func(i, j int) bool { return ps.list[i].Line < ps.list[j].Line })
	return &Error{Problems: ps.list}
}
