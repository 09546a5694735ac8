package providers

import (
	"testing"
)

var geminiFixtureNames = []string{
	"streamgeneratecontent-functioncall-thought-signature-crlf.sse",
	"streamgeneratecontent-parallel-functioncalls-crlf.sse",
}

func TestGeminiFixturesDecode(t *testing.T) {
	cases := []struct {
		name  string
		calls []string
		args  []string
	}{
		{geminiFixtureNames[0], []string{"get_country"}, []string{`{}`}},
		{geminiFixtureNames[1], []string{"add", "multiply"}, []string{`{"b": 3,"a": 2}`, `{"a": 2,"b": 3}`}},
	}
	for _, c := range cases {
		_, parts, err := viewSSECalls(readFixture(t, "gemini-native/"+c.name))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(parts) != len(c.calls) {
			t.Fatalf("%s: %d calls, want %d", c.name, len(parts), len(c.calls))
		}
		for i, p := range parts {
			if p.Call.Name.Text() != c.calls[i] || string(p.Call.Args.Raw) != c.args[i] {
				t.Errorf("%s call %d: %s %s", c.name, i, p.Call.Name.Raw, p.Call.Args.Raw)
			}
			if (i == 0) != p.ThoughtSignature.NonEmpty() {
				t.Errorf("%s call %d: thoughtSignature %.20q, want one on the first call only", c.name, i, p.ThoughtSignature.Raw)
			}
		}
	}
}
