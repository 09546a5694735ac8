package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/bench/hgtarget"
)

// hgbench -scenarios hooked-path runs every hook configuration through
// direct, the bare hop and hookgate, each answer the recording byte for
// byte, and reports hookgate's added first byte and stream end per
// configuration as multiples of the hop's, in the table and in the JSON.
func TestHookedPathReportsEveryConfiguration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hookgate per scenario")
	}
	var stdout, stderr bytes.Buffer
	var rep *bench.Report
	cmd := bench.Command{
		Name:    "hgbench",
		Targets: []bench.Target{hgtarget.Target(hgtarget.Options{Notes: io.Discard})},
		Stdout:  &stdout, Stderr: &stderr,
		Report: func(r *bench.Report) { rep = r },
	}
	args := []string{"-scenarios", "hooked-path", "-requests", "12", "-warmup", "3", "-duration", "10s", "-chunk-interval", "1ms", "-out", ""}
	if err := cmd.Main(context.Background(), args); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want := []string{"hooked-path-none", "hooked-path-cel", "hooked-path-builtin", "hooked-path-script1", "hooked-path-script10"}
	for _, p := range rep.Phases {
		for _, tr := range p.Targets {
			if tr.Requests == 0 || tr.Errors > 0 {
				t.Errorf("%s %s: %d of %d failed: %v", p.Scenario, tr.Name, tr.Errors, tr.Requests, tr.ErrorSamples)
			}
		}
	}
	if len(rep.HopMultiples) != len(want) {
		t.Fatalf("%d multiples, want one per configuration (%v):\n%s", len(rep.HopMultiples), want, stdout.String())
	}
	for i, m := range rep.HopMultiples {
		if m.Scenario != want[i] || m.Target != "hookgate" {
			t.Errorf("multiple %d is %s/%s, want %s/hookgate", i, m.Scenario, m.Target, want[i])
		}
		if m.Pairs < 10 {
			t.Errorf("%s: %d pairs", m.Scenario, m.Pairs)
		}
		// Added times are differences of two requests of tens of
		// milliseconds: on a shared machine a median can fall a little
		// below zero, but never by more than a stream's length, and
		// hookgate's first byte comes within a second.
		for name, v := range map[string]float64{"hop ttfb": m.HopTTFBUS, "ttfb": m.TTFBUS, "hop end": m.HopEndUS, "end": m.EndUS} {
			if math.IsNaN(v) || math.Abs(v) > 1e6 {
				t.Errorf("%s: %s added %v µs", m.Scenario, name, v)
			}
		}
		for name, f := range map[string]float64{"first byte": float64(m.TTFBMultiple), "stream end": float64(m.EndMultiple)} {
			unit := m.HopTTFBUS
			if name == "stream end" {
				unit = m.HopEndUS
			}
			if unit > 0 && (math.IsNaN(f) || math.IsInf(f, 0)) || unit <= 0 && !math.IsNaN(f) {
				t.Errorf("%s: %s multiple %v with the hop's added time %v µs", m.Scenario, name, f, unit)
			}
		}
		if !strings.Contains(stdout.String(), m.Scenario+"  hookgate") {
			t.Errorf("the table has no multiples line for %s:\n%s", m.Scenario, stdout.String())
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back bench.Report
	if err := json.Unmarshal(b, &back); err != nil || len(back.HopMultiples) != len(want) {
		t.Fatalf("the JSON does not carry the multiples back (%v): %d", err, len(back.HopMultiples))
	}
}
