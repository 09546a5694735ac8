package oracle

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// geminiKnown is the KnownFailOpen entry of a Gemini class: its name is
// prefixed with "gemini/", the Gemini classes being a list of their own.
func geminiKnown(name string) (FailOpen, bool) {
	fo, ok := KnownFailOpen["gemini/"+name]
	return fo, ok && fo.Go
}

// FuzzOracleGemini drives the Gemini classes as fuzzOracle drives the
// others: data[0] the recording and form, data[1] the chunking, the rest
// the stack of one or two classes and their choices.
func FuzzOracleGemini(f *testing.F) {
	samples := loadGeminiSamples(f)
	for i := range samples {
		for c := range geminiClasses {
			f.Add([]byte{byte(i), 0, 0, byte(c), 0, 0, 0})
		}
	}
	s := startGeminiStack(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		smp := samples[int(data[0])%len(samples)]
		chunking := chunkings[int(data[1])%len(chunkings)]
		p := &params{b: data[2:]}
		m := newGeminiMutant(smp)
		var applied []string
		for n := 1 + p.pick(2); n > 0; n-- {
			c := geminiClasses[p.pick(len(geminiClasses))]
			if c.fits(m.form) && c.apply(m, p) {
				applied = append(applied, c.name)
			}
		}
		if len(applied) == 0 {
			return
		}
		if chunking.Mode == mockupstream.FixedSize && len(m.body()) > 64<<10 {
			// Megabytes in one-byte writes would take the whole run.
			chunking = mockupstream.Chunking{Mode: mockupstream.Random, Size: 4096, Seed: 7}
		}
		v := s.judge(t.Context(), m, chunking, false)
		if len(v.leaks()) == 0 {
			return
		}
		for _, name := range applied {
			if fo, ok := geminiKnown(name); ok {
				t.Skipf("KNOWN FAIL-OPEN until %s: class gemini/%s (stacked: %s)", fo.Until, name, strings.Join(applied, " + "))
			}
		}
		t.Fatalf("%s (%s) mutated by %s (chunking %v) let a blocked call through:%s\nbody sent by the upstream (status %d):\n%q",
			smp.rel, smp.form, strings.Join(applied, " + "), chunking.Mode, v, m.status, clipBody(m.body()))
	})
}

// clipBody shortens a body for a report.
func clipBody(b []byte) string {
	if len(b) > 4000 {
		return string(b[:4000]) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return string(b)
}

// geminiParams are the choices a class is tried with in the table: each
// variant, applied to every frame with a call, and to every SSE block for
// the framing class.
func geminiParams() [][]byte {
	var out [][]byte
	for v := byte(0); v < 11; v++ {
		out = append(out, []byte{v, 0, 0}, []byte{v, 1, 0})
	}
	return out
}

// TestGeminiMutationClasses applies every Gemini class to every recording
// in every form, serves each result through a hookgate with a gemini
// upstream that blocks every call, and fails when genai-go or the lenient
// reader reads a call through it. A class listed in KnownFailOpen (as
// "gemini/<class>") is skipped loudly when it leaks, and fails when it no
// longer does.
func TestGeminiMutationClasses(t *testing.T) {
	s := startGeminiStack(t)
	samples := loadGeminiSamples(t)
	for _, c := range geminiClasses {
		t.Run(c.name, func(t *testing.T) {
			var leaks []string
			cases, live := 0, 0
			for _, smp := range samples {
				if !c.fits(smp.form) {
					continue
				}
				seen := map[[32]byte]bool{}
				for _, ps := range geminiParams() {
					m := newGeminiMutant(smp)
					if !c.apply(m, &params{b: ps}) {
						continue
					}
					body := m.body()
					key := sha256.Sum256(body)
					if seen[key] {
						continue
					}
					seen[key] = true
					cases++
					v := s.judge(t.Context(), m, mockupstream.Chunking{Mode: mockupstream.PerEvent}, true)
					if v.live() {
						live++
					}
					if len(v.leaks()) > 0 {
						leaks = append(leaks, fmt.Sprintf("%s (%s) params %v: %s\n    body: %q", smp.rel, smp.form, ps, v, clipBody(body)))
					}
				}
			}
			if cases == 0 {
				t.Fatalf("class %s applied to no recording", c.name)
			}
			t.Logf("%d cases, %d of them with a call some oracle reads directly from the upstream", cases, live)
			fo, known := geminiKnown(c.name)
			switch {
			case len(leaks) > 0 && known:
				t.Skipf("KNOWN FAIL-OPEN until %s: class gemini/%s: %d of %d cases let a blocked call through, e.g. %s", fo.Until, c.name, len(leaks), cases, leaks[0])
			case len(leaks) > 0:
				t.Errorf("class %s: %d of %d cases let a blocked call through:\n  %s", c.name, len(leaks), cases, strings.Join(leaks, "\n  "))
			case known:
				t.Errorf("class gemini/%s is listed in KnownFailOpen but no case leaks any more: remove it from the table", c.name)
			}
		})
	}
}
