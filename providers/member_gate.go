package providers

import "fmt"

// memberGate is the canonical-form gate of a format whose clients match
// member names as encoding/json does (without regard to case, keeping the
// last of keys that match) or as protobuf JSON does (snake_case beside
// camelCase), while hookgate reads exact names: a value is read only when
// every reader agrees. No object repeats a key (ErrDuplicateKey), and no
// key that folds (foldMemberName: case, Unicode simple folding, escapes
// decoded, '_' removed) to one of the format's member names is spelt other
// than exactly (ErrKeySpelling). Values of free-form members (a call's
// arguments, schemas, metadata maps) hold keys no reader matches to a
// field, and are not looked into.
type memberGate struct {
	api      string              // the API's name, for errors
	members  map[string]struct{} // the member names
	folded   map[string]string   // each name's folded form, to the name
	longest  int                 // the longest name's length
	freeForm map[string]struct{}
}

func newMemberGate(api string, names []string, freeForm map[string]struct{}) *memberGate {
	g := &memberGate{api: api, members: make(map[string]struct{}, len(names)), folded: make(map[string]string, len(names)), freeForm: freeForm}
	for _, n := range names {
		g.members[n] = struct{}{}
		f, _ := foldMemberName(nil, []byte(n), true, len(n))
		g.folded[string(f)] = n
		g.longest = max(g.longest, len(n))
	}
	return g
}

// check is the gate: valid JSON (ErrInvalidJSON), no repeated key at any
// depth (ErrDuplicateKey), no variant spelling of a member outside
// free-form members (ErrKeySpelling).
func (g *memberGate) check(raw []byte) error {
	if err := validateUnique(raw, nil); err != nil {
		return err
	}
	return g.spelling(raw, 0)
}

// spelling walks a valid value and fails at the first key that is a
// variant spelling of a member.
func (g *memberGate) spelling(raw []byte, depth int) error {
	if depth > maxJSONDepth {
		return errTooDeep
	}
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return nil
	}
	switch raw[i] {
	case '{':
		it, _ := iterObject(raw)
		for key, val, ok := it.next(); ok; key, val, ok = it.next() {
			if name, ok := g.variant(key); ok {
				return fmt.Errorf("key %q spells %s member %q: %w", key, g.api, name, ErrKeySpelling)
			}
			if _, free := g.freeForm[string(key)]; free {
				continue
			}
			if err := g.spelling(val, depth+1); err != nil {
				return err
			}
		}
	case '[':
		it, _ := iterArray(raw)
		for val, ok := it.next(); ok; val, ok = it.next() {
			if err := g.spelling(val, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// variant reports whether k, a raw key between its quotes, folds to a
// member name without being one exactly; it returns the member.
func (g *memberGate) variant(k []byte) (string, bool) {
	if _, exact := g.members[string(k)]; exact {
		return "", false
	}
	if len(k) > 6*g.longest+32 {
		return "", false // longer than any member, even spelt in \u escapes and '_'s
	}
	var ftmp [256]byte
	folded, ok := foldMemberName(ftmp[:0], k, true, g.longest)
	if !ok {
		return "", false
	}
	name, ok := g.folded[string(folded)]
	return name, ok
}
