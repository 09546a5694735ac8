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
func FuzzToolCallAssembler(f *testing.F) {
	for _, fx := range fixtures.List(f, fixtures.APIChatCompletions, fixtures.KindChunks) {
		f.Add(fx.Read(f))
	}
	for _, fx := range fixtures.List(f, fixtures.APIChatCompletions, fixtures.KindSSE) {
		// Reduce the SSE body to its data payloads, one per line.
		var lines [][]byte
		for _, l := range bytes.Split(fx.Read(f), []byte("\n")) {
			if p, ok := bytes.CutPrefix(l, []byte("data: ")); ok && !bytes.Equal(p, []byte("[DONE]")) {
				lines = append(lines, p)
			}
		}
		if in := bytes.Join(lines, []byte("\n")); len(in) < 8192 {
			f.Add(in)
		}
	}
	f.Add([]byte(tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}`) + "\n" +
		tc(`{"index":1,"id":"b","function":{"name":"g","arguments":"{\"x\":"}}`) + "\n" +
		tc(`{"index":0,"function":{"arguments":"1"}}`)))

	const maxArgs, maxCalls = 64, 4
	f.Fuzz(func(t *testing.T, in []byte) {
		var chunk ChatChunk
		asm := map[int]*ToolCallAssembler{}
		snap := map[[2]int]string{} // (choice, ordinal) -> arguments when completed
		for seq, line := range bytes.Split(in, []byte("\n")) {
			if err := chunk.Decode(line); err != nil {
				if !errors.Is(err, ErrInvalidJSON) {
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
