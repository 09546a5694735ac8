package shell

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpusEntry is one command line of a corpus file, with the rule sets
// (an "@set NAME" line) it is judged with and the line it starts on.
type corpusEntry struct {
	Line int
	Set  string
	Src  string
}

// readCorpus reads a corpus file in the format its header documents: one
// command line per line, '#' comments and blank lines skipped, a
// multi-line command between two lines holding only "---", and "@set
// NAME" naming the opt-in set for the entries below it.
func readCorpus(t testing.TB, name string) []corpusEntry {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "corpus", name))
	if err != nil {
		t.Fatalf("corpus %s: %v", name, err)
	}
	defer f.Close()
	var (
		entries []corpusEntry
		set     string
		block   []string
		inBlock bool
		start   int
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "---" && inBlock:
			entries = append(entries, corpusEntry{Line: start, Set: set, Src: strings.Join(block, "\n")})
			inBlock, block = false, nil
		case line == "---":
			inBlock, start = true, n
		case inBlock:
			block = append(block, line)
		case strings.HasPrefix(line, "@set "):
			set = strings.TrimSpace(strings.TrimPrefix(line, "@set "))
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
		default:
			entries = append(entries, corpusEntry{Line: n, Set: set, Src: line})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("corpus %s: %v", name, err)
	}
	if inBlock {
		t.Fatalf("corpus %s: the block starting on line %d has no closing ---", name, start)
	}
	return entries
}

func newDefaultGuard(t testing.TB) *Guard {
	t.Helper()
	g, err := NewGuard(GuardConfig{})
	if err != nil {
		t.Fatalf("NewGuard(GuardConfig{}): %v", err)
	}
	return g
}

func decisionName(d Decision) string {
	switch d {
	case Allow:
		return "allow"
	case Block:
		return "block"
	case Unresolved:
		return "unresolved"
	}
	return "decision?"
}

// TestCorpusDestructive: every destructive command line is Block or
// Unresolved under the default guard.
func TestCorpusDestructive(t *testing.T) {
	g := newDefaultGuard(t)
	entries := readCorpus(t, "destructive.txt")
	if len(entries) < 300 {
		t.Fatalf("destructive corpus has %d entries, want at least 300", len(entries))
	}
	counts := map[Decision]int{}
	var missed []string
	for _, e := range entries {
		v := g.Judge(e.Src)
		counts[v.Decision]++
		if v.Decision == Allow {
			missed = append(missed, "  line "+strconv.Itoa(e.Line)+": "+e.Src)
		}
	}
	t.Logf("%d destructive: %d blocked, %d unresolved, %d allowed",
		len(entries), counts[Block], counts[Unresolved], counts[Allow])
	if len(missed) > 0 {
		t.Errorf("%d destructive command lines allowed:\n%s", len(missed), strings.Join(missed, "\n"))
	}
}

// TestCorpusBenign: at most 1% of the benign command lines are judged
// anything but Allow; the ones that are are listed with the reason.
func TestCorpusBenign(t *testing.T) {
	g := newDefaultGuard(t)
	entries := readCorpus(t, "benign.txt")
	if len(entries) < 300 {
		t.Fatalf("benign corpus has %d entries, want at least 300", len(entries))
	}
	var stopped []string
	for _, e := range entries {
		v := g.Judge(e.Src)
		if v.Decision != Allow {
			stopped = append(stopped, "  line "+strconv.Itoa(e.Line)+": "+decisionName(v.Decision)+" ["+v.Rule+"] "+v.Reason+"\n    "+e.Src)
		}
	}
	t.Logf("%d benign: %d allowed, %d not allowed", len(entries), len(entries)-len(stopped), len(stopped))
	if len(stopped) > 0 {
		t.Logf("benign command lines not allowed:\n%s", strings.Join(stopped, "\n"))
	}
	if limit := len(entries) / 100; len(stopped) > limit {
		t.Errorf("%d benign command lines not allowed, the goal is at most %d (1%%)", len(stopped), limit)
	}
}

// TestCorpusOptIn: the opt-in sets catch what they name, judged with the
// default sets plus the entry's set; and the default guard alone lets the
// same lines through (the sets are opt-in, not on by default).
func TestCorpusOptIn(t *testing.T) {
	entries := readCorpus(t, "opt_in.txt")
	guards := map[string]*Guard{}
	var missed []string
	for _, e := range entries {
		if e.Set == "" {
			t.Fatalf("opt_in.txt line %d: no @set above it", e.Line)
		}
		g, ok := guards[e.Set]
		if !ok {
			var err error
			g, err = NewGuard(GuardConfig{Sets: append(append([]string{}, DefaultSets...), e.Set)})
			if err != nil {
				t.Fatalf("NewGuard with set %q: %v", e.Set, err)
			}
			guards[e.Set] = g
		}
		if v := g.Judge(e.Src); v.Decision == Allow {
			missed = append(missed, "  line "+strconv.Itoa(e.Line)+" (set "+e.Set+"): "+e.Src)
		}
	}
	t.Logf("%d opt-in: %d caught, %d allowed", len(entries), len(entries)-len(missed), len(missed))
	if len(missed) > 0 {
		t.Errorf("%d opt-in command lines allowed with their set on:\n%s", len(missed), strings.Join(missed, "\n"))
	}
}

// TestCorpusBeyondRules judges the destructive command lines the shipped
// rules do not promise to catch and logs where the guard ends. It asserts
// only that the file reads; the figures are a measurement.
func TestCorpusBeyondRules(t *testing.T) {
	g := newDefaultGuard(t)
	entries := readCorpus(t, "beyond_rules.txt")
	var allowed []string
	for _, e := range entries {
		if v := g.Judge(e.Src); v.Decision == Allow {
			allowed = append(allowed, "  "+e.Src)
		}
	}
	t.Logf("%d beyond the rules: %d caught, %d allowed:\n%s",
		len(entries), len(entries)-len(allowed), len(allowed), strings.Join(allowed, "\n"))
}
