package bench

import (
	"fmt"
	"math"
	"strings"
)

// HookedPathFixture is the recorded stream the hooked-path scenarios
// replay: gpt-4o answering with two parallel tool calls (add, twice) and a
// usage chunk.
const HookedPathFixture = "openai/chat-gpt4o-parallel-tools-include-usage.sse"

// HookedPathGroup selects every hooked-path scenario in --scenarios.
const HookedPathGroup = "hooked-path"

// hookedPathConfigs are the hook configurations the hooked-path scenarios
// compare, each in front of the same recording. None of them blocks
// anything, so hookgate's answer must be the recording byte for byte, and
// each judges both parallel calls (no matcher narrows them out).
var hookedPathConfigs = []struct{ name, about, hooks string }{
	{"none", "no hooks", ""},
	{"cel", "one pre_tool_use hook whose if_expr never matches (only the CEL condition runs)", `- id: cel-never
  event: pre_tool_use
  if_expr: "has(toolInput.command) && toolInput.command.startsWith('rm -rf')"
  handler:
    type: script
    source: 'function handle(e) { return { decision: "block", reason: "destructive command" }; }'
`},
	{"builtin", "the deny_patterns built-in (shell defaults) judging both calls", `- id: no-destructive
  event: pre_tool_use
  handler:
    type: builtin
    name: deny_patterns
    with: { defaults: [shell] }
`},
	{"script1", "one allowing script hook judging both calls", scriptHooks(1)},
	{"script10", "ten allowing script hooks, each judging both calls", scriptHooks(10)},
}

// HookedPathScenarios replay HookedPathFixture through each hook
// configuration: "hooked-path-none", "-cel", "-builtin", "-script1" and
// "-script10". Run them with direct and the bare hop in the same run and
// read HopMultiples: what hookgate adds to first byte and to stream end,
// as a multiple of what the bare hop adds.
func HookedPathScenarios(o Options) ([]Scenario, error) {
	var out []Scenario
	for _, c := range hookedPathConfigs {
		sc, err := FixtureStream(HookedPathGroup+"-"+c.name, HookedPathFixture, "2 parallel tool calls; "+c.about, o)
		if err != nil {
			return nil, err
		}
		sc.Hooks = c.hooks
		out = append(out, sc)
	}
	return out, nil
}

func hookedPathNames() string {
	var names []string
	for _, c := range hookedPathConfigs {
		names = append(names, HookedPathGroup+"-"+c.name)
	}
	return strings.Join(names, ", ")
}

// HopMultiple is one target in one phase measured in units of the bare
// hop: the paired median of what the target adds over direct, divided by
// the bare hop's paired median in the same phase. A multiple is NaN when
// the hop's added time is not positive (it is then no unit); JSON carries
// it as null.
type HopMultiple struct {
	Scenario string `json:"scenario"`
	Target   string `json:"target"`
	Pairs    int    `json:"pairs"`
	// Hop and target added times over direct, paired medians in µs.
	HopTTFBUS    float64   `json:"hop_added_ttfb_us"`
	TTFBUS       float64   `json:"added_ttfb_us"`
	HopEndUS     float64   `json:"hop_added_end_us"`
	EndUS        float64   `json:"added_end_us"`
	TTFBMultiple jsonFloat `json:"ttfb_multiple"`
	EndMultiple  jsonFloat `json:"end_multiple"`
}

// jsonFloat is a float64 that is written as null when it is not finite.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return []byte(fmt.Sprintf("%g", float64(f))), nil
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jsonFloat(math.NaN())
		return nil
	}
	var v float64
	if _, err := fmt.Sscanf(string(b), "%g", &v); err != nil {
		return err
	}
	*f = jsonFloat(v)
	return nil
}

// HopMultiples computes, for every streamed phase that has a bare-hop
// target, each other non-baseline target's added time to first byte and to
// the end of the stream (total latency) as multiples of the hop's.
func HopMultiples(phases []Phase) []HopMultiple {
	var out []HopMultiple
	for i := range phases {
		p := &phases[i]
		if !p.Streamed || len(p.Targets) < 3 {
			continue
		}
		var hop *TargetResult
		for j := range p.Targets[1:] {
			if p.Targets[1+j].Name == BareHop().Name {
				hop = &p.Targets[1+j]
			}
		}
		if hop == nil || hop.AddedTTFB == nil || hop.AddedLatency == nil {
			continue
		}
		for j := range p.Targets[1:] {
			t := &p.Targets[1+j]
			if t == hop || t.AddedTTFB == nil || t.AddedLatency == nil {
				continue
			}
			out = append(out, HopMultiple{
				Scenario:     p.Scenario,
				Target:       t.Name,
				Pairs:        min(t.AddedLatency.Pairs, hop.AddedLatency.Pairs),
				HopTTFBUS:    hop.AddedTTFB.PairedMedian,
				TTFBUS:       t.AddedTTFB.PairedMedian,
				HopEndUS:     hop.AddedLatency.PairedMedian,
				EndUS:        t.AddedLatency.PairedMedian,
				TTFBMultiple: multiple(t.AddedTTFB.PairedMedian, hop.AddedTTFB.PairedMedian),
				EndMultiple:  multiple(t.AddedLatency.PairedMedian, hop.AddedLatency.PairedMedian),
			})
		}
	}
	return out
}

func multiple(v, unit float64) jsonFloat {
	if unit <= 0 {
		return jsonFloat(math.NaN())
	}
	return jsonFloat(v / unit)
}

func fmtMultiple(f jsonFloat) string {
	if math.IsNaN(float64(f)) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(f))
}
