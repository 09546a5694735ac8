package shell

import (
	"regexp"
	"strings"
	"testing"
)

// rewriteSeeds are the destructive corpus lines the rewrites can work on:
// one simple command whose words are all plain or a home spelling, run by
// a program (not a builtin, not an assignment), so every rewrite keeps
// what bash runs.
func rewriteSeeds(t testing.TB) []string {
	t.Helper()
	seedWord := regexp.MustCompile(`^([A-Za-z0-9_./=:+,@%*?-]+|~|~/[A-Za-z0-9_./*-]*)$`)
	builtins := map[string]bool{"command": true, "exec": true, "time": true, "eval": true, "builtin": true, "coproc": true}
	var seeds []string
	for _, e := range readCorpus(t, "destructive.txt") {
		fields := strings.Fields(e.Src)
		ok := len(fields) > 1 && !builtins[fields[0]] && !strings.Contains(fields[0], "=")
		for _, f := range fields {
			ok = ok && seedWord.MatchString(f)
		}
		if ok {
			seeds = append(seeds, e.Src)
		}
	}
	if len(seeds) < 50 {
		t.Fatalf("only %d destructive corpus lines are simple enough to rewrite", len(seeds))
	}
	return seeds
}

// applyRewrites rewrites seed by the fuzz input: wordOps in pairs (which
// rewrite, which word), then lineOps in pairs (which rewrite, which
// variant). Every step keeps what bash runs.
func applyRewrites(seed string, wordOps, lineOps []byte) string {
	return applyLineRewrites(applyWordRewrites(seed, wordOps, lineOps), lineOps)
}

// applyRawRewrites rewrites any command line (not split into words) by
// lineOps: only quoting it whole applies until it has been.
func applyRawRewrites(src string, lineOps []byte) string {
	return applyLineRewrites(rwLine{Src: src, Kind: rwRaw}, lineOps)
}

func applyWordRewrites(seed string, wordOps, lineOps []byte) rwLine {
	ws := rwWords(strings.Fields(seed))
	getopt := getoptCommands[ws[0].Src]
	for i := 0; i+1 < len(wordOps) && i < 24; i += 2 {
		op, at := int(wordOps[i]), int(wordOps[i+1])
		k := at % len(ws)
		if ws[k].Src != "~" && !strings.HasPrefix(ws[k].Src, "~/") && strings.ContainsAny(ws[k].Src, "*?") {
			continue // quoting a glob stops it globbing
		}
		switch op % 10 {
		case 0:
			ws[k] = rwEmptyQuotes(ws[k], at/len(ws))
		case 1:
			ws[k] = rwDoubleQuote(ws[k])
		case 2:
			ws[k] = rwSingleQuote(ws[k])
		case 3:
			ws[k] = rwBackslashFirst(ws[k])
		case 4:
			ws[k] = rwBackslashAll(ws[k])
		case 5:
			if getopt && k > 0 {
				split := rwSplitFlags(ws[k])
				ws = append(ws[:k], append(split, ws[k+1:]...)...)
			}
		case 6:
			if getopt && k > 0 {
				ws[k] = rwReverseBundle(ws[k])
			}
		case 7:
			if getopt {
				ws = rwSwapFlags(ws, at)
			}
		case 8:
			if !strings.HasPrefix(ws[k].Src, "/dev/") {
				ws[k] = rwUncleanPath(ws[k], at/len(ws))
			}
		case 9:
			ws[k] = rwHomeVar(ws[k])
		}
	}
	l := rwLine{Src: joinWords(ws), Kind: rwExternal}
	if len(lineOps) > 0 && lineOps[0]%4 == 0 {
		l.Src = rwJoinIFS(ws)
	}
	return l
}

func applyLineRewrites(l rwLine, lineOps []byte) string {
	for i := 0; i+1 < len(lineOps) && i < 12; i += 2 {
		op, which := int(lineOps[i]), int(lineOps[i+1])
		switch op % 9 {
		case 0:
			l = rwExecWrap(l, which)
		case 1:
			l = rwBuiltinWrap(l, which)
		case 2:
			l = rwShellC(l, which)
		case 3:
			l = rwEval(l)
		case 4:
			l = rwSubshell(l)
		case 5:
			l = rwGroup(l)
		case 6:
			l = rwAfterTrue(l)
		case 7:
			l = rwAfterFalse(l)
		case 8:
			l = rwExecWrap(l, which)
		}
	}
	return l.Src
}

// FuzzShellRewrites: a destructive command line rewritten the ways a shell
// reads the same is never allowed. Simple seeds take every rewrite; every
// other destructive corpus line (seed numbers past the simple ones) takes
// the line rewrites that quote it whole, then any.
func FuzzShellRewrites(f *testing.F) {
	g := newDefaultGuard(f)
	// A seed the guard allows as written is TestCorpusDestructive's
	// failure; the fuzzer asks whether a rewrite turns a caught line into
	// an allowed one.
	caught := func(srcs []string) []string {
		var out []string
		for _, s := range srcs {
			if g.Judge(s).Decision != Allow {
				out = append(out, s)
			}
		}
		return out
	}
	seeds := caught(rewriteSeeds(f))
	var raws []string
	for _, e := range readCorpus(f, "destructive.txt") {
		raws = append(raws, e.Src)
	}
	raws = caught(raws)
	for i := range seeds {
		f.Add(uint16(i), []byte{}, []byte{})
		f.Add(uint16(i), []byte{0, 0, 5, 1, 8, 2}, []byte{0, 1, 2, 0})
		f.Add(uint16(i), []byte{3, 0, 1, 1, 9, 2}, []byte{4, 0, 6, 0, 2, 1})
		f.Add(uint16(i), []byte{4, 0, 7, 0, 2, 2}, []byte{1, 0, 3, 0})
	}
	for i := range raws {
		f.Add(uint16(len(seeds)+i), []byte{}, []byte{2, 0, 4, 0})
		f.Add(uint16(len(seeds)+i), []byte{}, []byte{3, 0, 2, 1, 0, 0})
	}
	f.Fuzz(func(t *testing.T, seed uint16, wordOps, lineOps []byte) {
		var src, line string
		if n := int(seed) % (len(seeds) + len(raws)); n < len(seeds) {
			src = seeds[n]
			line = applyRewrites(src, wordOps, lineOps)
		} else {
			src = raws[n-len(seeds)]
			line = applyRawRewrites(src, lineOps)
		}
		if v := g.Judge(line); v.Decision == Allow {
			t.Fatalf("allowed a rewrite of a destructive command line\n seed: %s\n line: %s", src, line)
		}
	})
}

// TestRewritesOfSeedsRunInBash: a sample of fuzz-built lines, with the
// seed's command renamed to the argv printer, still parse and run in bash
// (the rewrites keep a line valid shell).
func TestRewritesOfSeedsRunInBash(t *testing.T) {
	run := argvBash(t)
	seed := "hgargv -rf /nonexistent-hg/x ~ -v"
	inputs := [][2][]byte{
		{{0, 0, 5, 1, 8, 2}, {0, 1, 2, 0}},
		{{3, 0, 1, 1, 9, 3}, {4, 0, 6, 0, 2, 1}},
		{{4, 0, 2, 2}, {1, 0, 3, 0}},
		{{8, 2, 8, 2, 0, 4}, {0, 3, 0, 2, 2, 0, 5, 0}},
		{{1, 0}, {8, 2, 7, 0, 2, 1, 0, 4}},
	}
	for _, in := range inputs {
		line := applyRewrites(seed, in[0], in[1])
		got := strings.Join(run(line), " ")
		if !strings.HasPrefix(got, "hgargv ") || !strings.Contains(got, "/nonexistent-hg/x") {
			t.Errorf("%s\n runs %q", line, got)
		}
	}
}
