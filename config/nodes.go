package config

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// envRef matches ${NAME}. Only the braced form is expanded, so a stray "$"
// in a value (or a JavaScript template literal in a script) is left alone.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandEnv replaces ${NAME} in every scalar value of the document, except
// inside script sources, and reports references to unset variables.
func expandEnv(n *yaml.Node, ps *problems, lookup func(string) (string, bool)) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			expandEnv(c, ps, lookup)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "source" {
				continue
			}
			expandEnv(n.Content[i+1], ps, lookup)
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return
		}
		n.Value = envRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
			name := envRef.FindStringSubmatch(ref)[1]
			v, ok := lookup(name)
			if !ok {
				ps.addUnread(n.Line, "", "environment variable %s is not set", name)
			}
			return v
		})
	}
}

// lineOf finds the line of a value by a path of mapping keys and sequence
// indexes, e.g. lineOf(root, "upstreams", 0, "base_url"). It returns the
// line of the deepest node it could reach.
func lineOf(root *yaml.Node, path ...any) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, step := range path {
		switch s := step.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return line
			}
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == s {
					n, found = n.Content[i+1], true
					line = n.Line
					break
				}
			}
			if !found {
				return line
			}
		case int:
			if n.Kind != yaml.SequenceNode || s >= len(n.Content) {
				return line
			}
			n = n.Content[s]
			line = n.Line
		}
	}
	return line
}

// yamlLine extracts "line N" from a yaml error message.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// leadingLine is the "line N: " that starts a yaml message (the problem
// carries the line itself).
var leadingLine = regexp.MustCompile(`^line \d+: `)

// unknownField rewrites yaml's "field x not found in type config.Config".
var unknownField = regexp.MustCompile(`field (\S+) not found in type \S+`)

// decodeProblems turns a yaml decoding error into located problems.
func decodeProblems(err error, ps *problems) {
	var msgs []string
	if te, ok := err.(*yaml.TypeError); ok {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	for _, m := range msgs {
		line := 0
		if sub := yamlLine.FindStringSubmatch(m); sub != nil {
			line, _ = strconv.Atoi(sub[1])
		}
		m = strings.TrimPrefix(m, "yaml: ")
		m = leadingLine.ReplaceAllString(m, "")
		m = unknownField.ReplaceAllString(m, `unknown key "$1" (check its spelling)`)
		ps.addUnread(line, "", "%s", m)
	}
}

func osLookup(name string) (string, bool) { return os.LookupEnv(name) }
