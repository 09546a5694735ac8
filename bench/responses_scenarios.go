package bench

import (
	"fmt"
	"strings"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// ResponsesFixture is the recorded OpenAI Responses stream the Responses
// hook scenarios replay: one function call whose arguments come in 8
// deltas.
const ResponsesFixture = "openai-responses/gpt4o-function-call-args-8-deltas.sse"

// responsesHookKinds are the hook kinds measured on POST /v1/responses:
// none, the 5 ms http hook enforced, and the same hook in dry run.
var responsesHookKinds = []string{"hooks-none", "http-sleep5", "dryrun-sleep5"}

// responsesRequest is a streamed Responses request declaring the
// fixture's weather tool.
var responsesRequest = []byte(`{"model":"gpt-4o","stream":true,"input":"What is the weather in Florence?",` +
	`"tools":[{"type":"function","name":"weather","description":"Get weather information for a location",` +
	`"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]}`)

// responsesScenarioNames lists the Responses hook scenarios' names for
// --scenarios' help.
func responsesScenarioNames() string {
	names := make([]string, len(responsesHookKinds))
	for i, k := range responsesHookKinds {
		names[i] = "responses-" + k + "-stream"
	}
	return strings.Join(names, ", ")
}

// ResponsesHookScenarios are the Responses hook scenarios,
// "responses-<kind>-stream": the recorded stream relayed one event per
// write at o.ChunkInterval, its first call marked by the first
// "function_call" (the call item's output_item.added). Every one must
// reach the client byte for byte as it came (an allowed held call goes out
// as its bytes).
func ResponsesHookScenarios(o Options) []Scenario {
	var out []Scenario
	for _, name := range responsesHookKinds {
		for _, k := range hookKinds {
			if k.name != name {
				continue
			}
			r, err := mockupstream.Fixture(ResponsesFixture, mockupstream.Chunking{Mode: mockupstream.PerEvent, Interval: o.ChunkInterval})
			if err != nil {
				continue // no fixtures here: the scenarios are not offered
			}
			r.Latency = o.UpstreamLatency
			events := len(mockupstream.Chunks(r.Body, mockupstream.Chunking{Mode: mockupstream.PerEvent}))
			out = append(out, Scenario{
				Name:        "responses-" + k.name + "-stream",
				Description: fmt.Sprintf("%s; POST /v1/responses, recorded stream %s, %d events every %v", k.about, ResponsesFixture, events, o.ChunkInterval),
				Path:        "/v1/responses",
				Body:        responsesRequest,
				Response:    r,
				Hooks:       k.hooks,
				ToolKey:     []byte(`"function_call"`),
			})
		}
	}
	return out
}
