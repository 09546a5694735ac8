package providers

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// FuzzToolCallAssembler feeds arbitrary chunk payloads (one per line)
// through ChatChunk and per-choice assemblers with small caps. It must
// never panic, never exceed a cap, keep ordinals dense and frames
// ascending, and never change a call once it was reported complete.
//
// Its seeds are the recordings' tool-call passages, cut to at most
// assemblerSeedBytes each (seedWindows).
func FuzzToolCallAssembler(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIChatCompletions, fixtures.KindChunks) {
		seedWindows(f, bytes.Split(fx.Read(f), []byte("\n")))
	}
	for _, fx := range fixtures.List(f, fixtures.APIChatCompletions, fixtures.KindSSE) {
		// Reduce the SSE body to its data payloads, one per line.
		var lines [][]byte
		for _, l := range bytes.Split(fx.Read(f), []byte("\n")) {
			if p, ok := bytes.CutPrefix(l, []byte("data: ")); ok && !bytes.Equal(p, []byte("[DONE]")) {
				lines = append(lines, p)
			}
		}
		seedWindows(f, lines)
	}
	f.Add([]byte(tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}`) + "\n" +
		tc(`{"index":1,"id":"b","function":{"name":"g","arguments":"{\"x\":"}}`) + "\n" +
		tc(`{"index":0,"function":{"arguments":"1"}}`)))
	// Decode's refusals other than ErrInvalidJSON, which the target once
	// failed on (the fuzzer found the first): a message.tool_calls beside a
	// different delta's (ErrUnjudgedCall), an index that is not plain
	// (ErrBadIndex).
	f.Add([]byte(`{"choices":[{"index":0,"message":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f"}}]},"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f"}}]}}]}`))
	f.Add([]byte(`{"choices":[{"index":1.0,"delta":{"content":"x"}}]}`))

	const maxArgs, maxCalls = 64, 4
	f.Fuzz(func(t *testing.T, in []byte) {
		var chunk ChatChunk
		asm := map[int]*ToolCallAssembler{}
		snap := map[[2]int]string{} // (choice, ordinal) -> arguments when completed
		for seq, line := range bytes.Split(in, []byte("\n")) {
			if err := chunk.Decode(line); err != nil {
				// The refusals Decode documents: a chunk it cannot read, a
				// call in a shape it does not judge, an index it will not
				// guess at.
				if !errors.Is(err, ErrInvalidJSON) && !errors.Is(err, ErrUnjudgedCall) && !errors.Is(err, ErrBadIndex) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				continue
			}
			for i := range chunk.Choices {
				ch := &chunk.Choices[i]
				a := asm[ch.Index]
				if a == nil {
					if len(asm) > 8 {
						continue
					}
					a = NewToolCallAssembler(ToolCallLimits{MaxArgumentsBytes: maxArgs, MaxCalls: maxCalls})
					asm[ch.Index] = a
				}
				done, err := a.Add(uint64(seq), ch.ToolCalls)
				if err != nil && !errors.Is(err, ErrArgumentsTooLarge) && !errors.Is(err, ErrTooManyToolCalls) && !errors.Is(err, ErrCallAlreadyComplete) {
					t.Fatalf("unexpected error: %v", err)
				}
				for _, k := range done {
					c := a.Call(k)
					if !c.Complete || !c.Early || !gjson.ValidBytes(c.Arguments) || k == a.Len()-1 {
						t.Fatalf("bad early completion %d: %+v (of %d)", k, c, a.Len())
					}
				}
				if ch.Finished() {
					a.Finish()
				}
				check(t, a, ch.Index, snap, maxArgs, maxCalls)
			}
		}
		for ci, a := range asm {
			a.Finish()
			check(t, a, ci, snap, maxArgs, maxCalls)
		}
	})
}

func check(t *testing.T, a *ToolCallAssembler, choice int, snap map[[2]int]string, maxArgs, maxCalls int) {
	t.Helper()
	if a.Len() > maxCalls {
		t.Fatalf("%d calls, cap %d", a.Len(), maxCalls)
	}
	for k, c := range a.Calls() {
		if c.Ordinal != k {
			t.Fatalf("ordinal %d at %d", c.Ordinal, k)
		}
		if len(c.Arguments) > maxArgs {
			t.Fatalf("call %d arguments %d bytes, cap %d", k, len(c.Arguments), maxArgs)
		}
		for j := 1; j < len(c.Frames); j++ {
			if c.Frames[j] <= c.Frames[j-1] {
				t.Fatalf("frames not ascending: %v", c.Frames)
			}
		}
		key := [2]int{choice, k}
		if c.Complete {
			if s, ok := snap[key]; ok && s != string(c.Arguments) {
				t.Fatalf("call %d changed after completion: %q -> %q", k, s, c.Arguments)
			} else if !ok {
				snap[key] = string(c.Arguments)
			}
		}
	}
}

// assemblerSeedBytes bounds the seeds of FuzzToolCallAssembler. The
// fuzzer minimizes every input that finds new coverage, and for JSON,
// where few bytes can go, the minimizer tries a number of candidates that
// grows with the square of the input's length: whole recordings (up to
// 17 KB) as seeds made the first finds stall all fuzzing for many seconds,
// execs stuck at a few dozen. The caps under test are small (64 argument
// bytes, 4 calls), so short inputs reach them.
const assemblerSeedBytes = 512

// seedsPerRecording bounds the seeds one recording gives: every seed costs
// a round of baseline coverage before fuzzing starts, and a recording's
// later passages repeat its first ones.
const seedsPerRecording = 2

// seedWindows adds a recording's first seedsPerRecording runs of
// consecutive chunk payloads, of at most assemblerSeedBytes, that carry
// tool calls: a call split over several chunks stays split over several
// lines. A longer line is a run on its own, up to twice that.
func seedWindows(f *testing.F, lines [][]byte) {
	var run [][]byte
	size, added := 0, 0
	add := func(in []byte) {
		if added < seedsPerRecording && bytes.Contains(in, []byte(`"tool_calls"`)) {
			f.Add(in)
			added++
		}
	}
	flush := func() {
		add(bytes.Join(run, []byte("\n")))
		run, size = run[:0], 0
	}
	for _, l := range lines {
		if len(l) > assemblerSeedBytes {
			flush()
			if len(l) <= 2*assemblerSeedBytes {
				add(l)
			}
			continue
		}
		if size+len(l)+1 > assemblerSeedBytes {
			flush()
		}
		run = append(run, l)
		size += len(l) + 1
	}
	flush()
}
