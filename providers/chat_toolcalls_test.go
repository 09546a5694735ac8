package providers

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// feedChunks decodes chunk payloads (choice 0) into an assembler, returning
// the early completions as "ordinal@seq".
func feedChunks(t *testing.T, a *ToolCallAssembler, payloads ...string) ([]string, error) {
	t.Helper()
	var chunk ChatChunk
	var early []string
	for i, p := range payloads {
		if err := chunk.Decode([]byte(p)); err != nil {
			t.Fatalf("payload %d: %v", i, err)
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		done, err := a.Add(uint64(i), chunk.Choices[0].ToolCalls)
		for _, k := range done {
			early = append(early, fmt.Sprintf("%d@%d", k, i))
		}
		if err != nil {
			return early, err
		}
	}
	return early, nil
}

func tc(entries ...string) string {
	return `{"choices":[{"index":0,"delta":{"tool_calls":[` + strings.Join(entries, ",") + `]}}]}`
}

type callSummary struct {
	Ordinal, Wire int
	ID, Name      string
	Args          string
	Frames        []uint64
	Complete      bool
	Early         bool
}

func summarize(a *ToolCallAssembler) []callSummary {
	var out []callSummary
	for _, c := range a.Calls() {
		out = append(out, callSummary{c.Ordinal, c.WireIndex, c.ID, c.Name, string(c.Arguments),
			append([]uint64(nil), c.Frames...), c.Complete, c.Early})
	}
	return out
}

func TestToolCallInterleaved(t *testing.T) {
	a := NewToolCallAssembler(ToolCallLimits{})
	early, err := feedChunks(t, a,
		tc(`{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}`),
		tc(`{"index":1,"id":"call_b","type":"function","function":{"name":"write","arguments":""}}`),
		tc(`{"index":0,"function":{"arguments":"{\"path\":"}}`),
		tc(`{"index":1,"function":{"arguments":"{\"path\":\"/tmp/x\","}}`),
		tc(`{"index":0,"function":{"arguments":"\"/etc/hosts\"}"}}`),
		tc(`{"index":1,"function":{"arguments":"\"data\":\"hi\"}"}}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	// Call 0 is complete as soon as its JSON closes, since call 1 has started.
	if !reflect.DeepEqual(early, []string{"0@4"}) {
		t.Fatalf("early %v", early)
	}
	if got := a.Finish(); !reflect.DeepEqual(got, []int{1}) {
		t.Fatalf("Finish completed %v", got)
	}
	want := []callSummary{
		{0, 0, "call_a", "read", `{"path":"/etc/hosts"}`, []uint64{0, 2, 4}, true, true},
		{1, 1, "call_b", "write", `{"path":"/tmp/x","data":"hi"}`, []uint64{1, 3, 5}, true, false},
	}
	if got := summarize(a); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestToolCallRouting(t *testing.T) {
	cases := []struct {
		name     string
		payloads []string
		want     []callSummary
	}{
		{
			name: "gemini style: two calls to one function in one delta, empty ids, no index",
			payloads: []string{tc(
				`{"id":"","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}`,
				`{"id":"","type":"function","function":{"name":"f","arguments":"{\"x\":2}"}}`)},
			want: []callSummary{
				{0, -1, "", "f", `{"x":1}`, []uint64{0}, true, true},
				{1, -1, "", "f", `{"x":2}`, []uint64{0}, true, false},
			},
		},
		{
			name: "two argument-less calls to one function in one delta",
			payloads: []string{tc(
				`{"id":"","function":{"name":"now"}}`,
				`{"id":"","function":{"name":"now"}}`)},
			want: []callSummary{
				{0, -1, "", "now", ``, []uint64{0}, true, false},
				{1, -1, "", "now", ``, []uint64{0}, true, false},
			},
		},
		{
			name: "no index, same function twice across chunks, no ids",
			payloads: []string{
				tc(`{"function":{"name":"f","arguments":"{\"x\":"}}`),
				tc(`{"function":{"arguments":"1}"}}`),
				tc(`{"function":{"name":"f","arguments":"{\"x\":2}"}}`),
			},
			want: []callSummary{
				{0, -1, "", "f", `{"x":1}`, []uint64{0, 1}, true, true},
				{1, -1, "", "f", `{"x":2}`, []uint64{2}, true, false},
			},
		},
		{
			name: "index reused for a different call id",
			payloads: []string{
				tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}`),
				tc(`{"index":0,"id":"b","function":{"name":"g","arguments":"{\"y\":"}}`),
				tc(`{"index":0,"id":"","function":{"arguments":"true}"}}`),
			},
			want: []callSummary{
				{0, 0, "a", "f", `{}`, []uint64{0}, true, true},
				{1, 0, "b", "g", `{"y":true}`, []uint64{1, 2}, true, false},
			},
		},
		{
			name: "writer: null id, type, name and arguments",
			payloads: []string{
				tc(`{"index":0,"id":"w1","type":"function","function":{"name":"get_weather","arguments":null}}`),
				tc(`{"index":0,"id":null,"type":null,"function":{"name":null,"arguments":"{\"location\":"}}`),
				tc(`{"index":0,"id":null,"type":null,"function":{"name":null,"arguments":" \"Lodz\"}"}}`),
			},
			want: []callSummary{{0, 0, "w1", "get_weather", `{"location": "Lodz"}`, []uint64{0, 1, 2}, true, false}},
		},
		{
			name: "id then index-less fragments continue the last call",
			payloads: []string{
				tc(`{"index":3,"id":"c","function":{"name":"h","arguments":"{\"a\""}}`),
				tc(`{"function":{"arguments":":1}"}}`),
			},
			want: []callSummary{{0, 3, "c", "h", `{"a":1}`, []uint64{0, 1}, true, false}},
		},
		{
			name: "arguments sent as an object",
			payloads: []string{
				tc(`{"index":0,"id":"o","function":{"name":"h","arguments":{"a":[1,2]}}}`),
			},
			want: []callSummary{{0, 0, "o", "h", `{"a":[1,2]}`, []uint64{0}, true, false}},
		},
		{
			name: "escaped id compared by value",
			payloads: []string{
				tc(`{"index":0,"id":"a\/b","function":{"name":"f","arguments":"{\"s\":\"\\u00e9\\n\"}"}}`),
				tc(`{"index":0,"id":"a/b","function":{"name":"f","arguments":""}}`),
			},
			want: []callSummary{{0, 0, "a/b", "f", "{\"s\":\"\\u00e9\\n\"}", []uint64{0, 1}, true, false}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := NewToolCallAssembler(ToolCallLimits{})
			if _, err := feedChunks(t, a, c.payloads...); err != nil {
				t.Fatal(err)
			}
			a.Finish()
			if got := summarize(a); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestToolCallLateFragment(t *testing.T) {
	a := NewToolCallAssembler(ToolCallLimits{})
	_, err := feedChunks(t, a,
		tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"cmd\":\"ls\"}"}}`),
		tc(`{"index":1,"id":"b","function":{"name":"g","arguments":"{}"}}`),
		tc(`{"index":0,"function":{"arguments":"  \n"}}`), // whitespace: harmless, dropped
	)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Call(0).Complete || string(a.Call(0).Arguments) != `{"cmd":"ls"}` {
		t.Fatalf("call 0: %+v", a.Call(0))
	}
	_, err = feedChunks(t, a, tc(`{"index":0,"function":{"arguments":"x"}}`))
	if !errors.Is(err, ErrCallAlreadyComplete) {
		t.Fatalf("a fragment changing a judged call must fail, got %v", err)
	}
}

func TestToolCallLimits(t *testing.T) {
	a := NewToolCallAssembler(ToolCallLimits{MaxArgumentsBytes: 10, MaxCalls: 2})
	_, err := feedChunks(t, a,
		tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"k\":"}}`),
		tc(`{"index":0,"function":{"arguments":"\"abcdef\"}"}}`),
	)
	if !errors.Is(err, ErrArgumentsTooLarge) {
		t.Fatalf("want ErrArgumentsTooLarge, got %v", err)
	}
	if n := len(a.Call(0).Arguments); n > 10 {
		t.Fatalf("arguments grew to %d", n)
	}
	a = NewToolCallAssembler(ToolCallLimits{MaxCalls: 2})
	_, err = feedChunks(t, a, tc(
		`{"index":0,"id":"a","function":{"name":"f"}}`,
		`{"index":1,"id":"b","function":{"name":"f"}}`,
		`{"index":2,"id":"c","function":{"name":"f"}}`))
	if !errors.Is(err, ErrTooManyToolCalls) || a.Len() != 2 {
		t.Fatalf("want ErrTooManyToolCalls with 2 calls, got %v, %d", err, a.Len())
	}
}

func TestToolCallAssemblerReset(t *testing.T) {
	a := NewToolCallAssembler(ToolCallLimits{})
	p := tc(`{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":1}"}}`)
	if _, err := feedChunks(t, a, p); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	a.Reset()
	if a.Len() != 0 || a.Finished() {
		t.Fatal("Reset left state")
	}
	if _, err := feedChunks(t, a, p); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	if got := summarize(a); len(got) != 1 || got[0].Args != `{"x":1}` || !reflect.DeepEqual(got[0].Frames, []uint64{0}) {
		t.Fatalf("after Reset: %+v", got)
	}
}
