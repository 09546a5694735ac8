package oracle

import (
	"strings"
	"testing"
)

// The fuzz targets choose everything from the fuzzer's bytes: data[0] the
// recording, data[1] how the mock cuts the stream into writes, and the rest
// feeds params: how many mutations to stack (one or two), then for each its
// class and that class's own choices. A leak fails unless one of the
// stacked classes is listed in KnownFailOpen (then the input is skipped,
// loudly, so that a fuzz run looks for classes not known yet).

func FuzzOracleChat(f *testing.F) { fuzzOracle(f, chatSSE, chatJSON) }

func FuzzOracleResponses(f *testing.F) { fuzzOracle(f, responsesSSE, responsesJSON) }

func FuzzOracleMessages(f *testing.F) { fuzzOracle(f, messagesSSE, messagesJSON) }

func fuzzOracle(f *testing.F, apis ...apiKind) {
	var samples []sample
	for _, s := range loadSamples(f) {
		for _, a := range apis {
			if s.api == a {
				samples = append(samples, s)
			}
		}
	}
	// One seed per class and recording format, the class applied alone
	// with its first choices.
	for i := range samples {
		if i > 0 && samples[i].api == samples[i-1].api {
			continue
		}
		for c := range classes {
			f.Add([]byte{byte(i), 0, 0, byte(c), 0, 0, 0})
		}
	}
	s := startStack(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		smp := samples[int(data[0])%len(samples)]
		chunking := chunkings[int(data[1])%len(chunkings)]
		p := &params{b: data[2:]}
		m := mutant{api: smp.api, body: append([]byte(nil), smp.body...)}
		var applied []string
		for n := 1 + p.pick(2); n > 0; n-- {
			c := classes[p.pick(len(classes))]
			if c.fits(m.api) && c.apply(&m, p) {
				applied = append(applied, c.name)
			}
		}
		if len(applied) == 0 {
			return
		}
		v := s.judge(t.Context(), m, chunking, false)
		if len(v.leaks()) == 0 {
			return
		}
		for _, name := range applied {
			if fo, ok := KnownFailOpen[name]; ok && fo.Go {
				t.Skipf("KNOWN FAIL-OPEN until %s: class %s (stacked: %s)", fo.Until, name, strings.Join(applied, " + "))
			}
		}
		t.Fatalf("%s mutated by %s (chunking %v) let a blocked call through:%s\nbody sent by the upstream (status %d):\n%s",
			smp.rel, strings.Join(applied, " + "), chunking.Mode, v, m.status, m.body)
	})
}
