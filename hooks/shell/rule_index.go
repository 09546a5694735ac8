package shell

// ruleIndex finds the rules that may match a command by its name, so that
// a long script is not tried against every rule for every command: rules
// whose command names are all literal are looked up by name, the others
// (globs such as "mkfs*", or no command: redirections) are tried always.
type ruleIndex struct {
	byName map[string][]int
	always []int
}

func indexRules(rules []Rule) ruleIndex {
	ix := ruleIndex{byName: make(map[string][]int)}
	for i, r := range rules {
		literal := len(r.Commands) > 0
		for _, c := range r.Commands {
			if hasGlob(c) {
				literal = false
			}
		}
		if !literal {
			ix.always = append(ix.always, i)
			continue
		}
		for _, c := range r.Commands {
			if l := ix.byName[c]; len(l) == 0 || l[len(l)-1] != i {
				ix.byName[c] = append(l, i)
			}
		}
	}
	return ix
}

// candidates appends to buf the indices of the rules that may match a
// command named name, in rule order (the first rule to match decides).
func (ix ruleIndex) candidates(name string, buf []int) []int {
	named := ix.byName[name]
	a, b := 0, 0
	for a < len(named) || b < len(ix.always) {
		switch {
		case b == len(ix.always) || (a < len(named) && named[a] < ix.always[b]):
			buf = append(buf, named[a])
			a++
		default:
			buf = append(buf, ix.always[b])
			b++
		}
	}
	return buf
}
