package builtin

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hookgate/hookgate/hooks"
)

func newTruncate(t *testing.T, with map[string]any) hooks.Handler {
	t.Helper()
	h, err := NewResultTruncate(hooks.BuiltinConfig{HookID: "trunc", Event: hooks.PostToolUse, Trusted: true, With: with})
	if err != nil {
		t.Fatalf("NewResultTruncate: %v", err)
	}
	return h
}

var markerRe = regexp.MustCompile("\n…\\[hookgate: ([0-9]+) characters removed\\]…\n")

// checkCut verifies the shape of a cut: exactly max runes, a prefix of in,
// the marker with the true count, a suffix of in, headRatio respected.
func checkCut(t *testing.T, in, out string, max int, headRatio float64) {
	t.Helper()
	if got := utf8.RuneCountInString(out); got != max {
		t.Fatalf("output has %d runes, want %d", got, max)
	}
	loc := markerRe.FindStringSubmatchIndex(out)
	if loc == nil {
		t.Fatalf("no marker in %q", out)
	}
	head, tail := out[:loc[0]], out[loc[1]:]
	if !strings.HasPrefix(in, head) || !strings.HasSuffix(in, tail) {
		t.Fatalf("head or tail is not the input's: head %q tail %q", head, tail)
	}
	removed, _ := strconv.Atoi(out[loc[2]:loc[3]])
	if kept := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail); kept+removed != utf8.RuneCountInString(in) {
		t.Fatalf("kept %d + removed %d != %d input runes", kept, removed, utf8.RuneCountInString(in))
	}
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatal("valid input cut into invalid UTF-8")
	}
	keep := max - utf8.RuneCountInString(out[loc[0]:loc[1]])
	if want := int(float64(keep) * headRatio); utf8.RuneCountInString(head) != want {
		t.Fatalf("head has %d runes, want %d", utf8.RuneCountInString(head), want)
	}
}

func TestTruncateMiddle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		max   int
		ratio float64
		cut   bool
	}{
		{"short", "hello", 100, 0.5, false},
		{"exactly max", strings.Repeat("a", 100), 100, 0.5, false},
		{"max bytes but fewer runes", strings.Repeat("é", 100), 100, 0.5, false},
		{"one over", strings.Repeat("a", 101), 100, 0.5, true},
		{"long ascii", strings.Repeat("0123456789", 2000), 8000, 0.5, true},
		{"two-byte runes", strings.Repeat("é", 500), 100, 0.5, true},
		{"three-byte runes", strings.Repeat("日本語", 500), 100, 0.5, true},
		{"four-byte runes", strings.Repeat("🙂", 500), 101, 0.5, true},
		{"mixed widths", strings.Repeat("a🙂é日", 300), 150, 0.3, true},
		{"all head", strings.Repeat("xy", 200), 100, 1, true},
		{"all tail", strings.Repeat("xy", 200), 100, 0, true},
		{"quarter head", strings.Repeat("line\n", 100), 120, 0.25, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, cut := truncateMiddle(tc.in, tc.max, tc.ratio)
			if cut != tc.cut {
				t.Fatalf("cut = %v, want %v", cut, tc.cut)
			}
			if !cut {
				if out != tc.in {
					t.Fatal("uncut output differs from input")
				}
				return
			}
			checkCut(t, tc.in, out, tc.max, tc.ratio)
			// The same input is cut the same way on every resend, and a
			// cut result passes unchanged when it comes back.
			again, _ := truncateMiddle(tc.in, tc.max, tc.ratio)
			if again != out {
				t.Fatal("not deterministic")
			}
			if twice, recut := truncateMiddle(out, tc.max, tc.ratio); recut || twice != out {
				t.Fatal("a cut result was cut again")
			}
		})
	}
}

// TestTruncateMarkerWidths walks input lengths across the points where
// the removed count gains a digit: the output must stay exactly max runes.
func TestTruncateMarkerWidths(t *testing.T) {
	const max = 100
	for n := max + 1; n < max+1200; n++ {
		in := strings.Repeat("é", n)
		out, cut := truncateMiddle(in, max, 0.5)
		if !cut {
			t.Fatalf("n=%d not cut", n)
		}
		checkCut(t, in, out, max, 0.5)
	}
}

func TestTruncateExampleMarker(t *testing.T) {
	in := strings.Repeat("a", 20305)
	out, _ := truncateMiddle(in, 8000, 0.5)
	// 8000 runes in all: 40 of marker, 3980 of head and 3980 of tail.
	want := strings.Repeat("a", 3980) + "\n…[hookgate: 12345 characters removed]…\n" + strings.Repeat("a", 3980)
	if out != want {
		t.Fatalf("got %d runes with marker %q", utf8.RuneCountInString(out), markerRe.FindString(out))
	}
}

func TestTruncateInvalidUTF8(t *testing.T) {
	in := strings.Repeat("ab\xff\xe2\x82", 100) // stray bytes count one each
	out, cut := truncateMiddle(in, 120, 0.5)
	if !cut {
		t.Fatal("not cut")
	}
	checkCut(t, in, out, 120, 0.5)
}

func TestResultTruncateHandle(t *testing.T) {
	h := newTruncate(t, map[string]any{"max_chars": 200, "head_ratio": 0.75})
	long := strings.Repeat("x", 1000)
	short := "ok"
	for _, tc := range []struct {
		name   string
		result *string
		want   hooks.Decision
	}{
		{"no result", nil, hooks.Allow},
		{"short", &short, hooks.Allow},
		{"long", &long, hooks.Rewrite},
	} {
		res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PostToolUse, ToolName: "read", ToolResult: tc.result})
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision != tc.want || (tc.want == hooks.Rewrite) != (res.UpdatedResult != nil) {
			t.Fatalf("%s: %+v", tc.name, res)
		}
		if res.UpdatedResult != nil {
			checkCut(t, long, *res.UpdatedResult, 200, 0.75)
		}
	}
	// Defaults: 8000, half and half.
	h = newTruncate(t, nil)
	big := strings.Repeat("y", 9000)
	res, _ := h.Handle(context.Background(), &hooks.Event{Event: hooks.PostToolUse, ToolResult: &big})
	checkCut(t, big, *res.UpdatedResult, DefaultTruncateMaxChars, 0.5)
}

func TestResultTruncateParams(t *testing.T) {
	for name, with := range map[string]map[string]any{
		"unknown key":   {"max_char": 100},
		"too small":     {"max_chars": 10},
		"ratio over 1":  {"head_ratio": 1.5},
		"ratio below 0": {"head_ratio": -0.1},
		"wrong type":    {"max_chars": "8000"},
	} {
		if _, err := NewResultTruncate(hooks.BuiltinConfig{Event: hooks.PostToolUse, Trusted: true, With: with}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewResultTruncate(hooks.BuiltinConfig{Event: hooks.PreToolUse, Trusted: true}); err == nil {
		t.Error("accepted on pre_tool_use")
	}
	if _, err := NewResultTruncate(hooks.BuiltinConfig{Event: hooks.PostToolUse, Trusted: false}); err == nil || !strings.Contains(err.Error(), "allow_mutation: [toolResult]") {
		t.Errorf("untrusted: err = %v", err)
	}
}

// TestResultTruncateThroughTheEngine shows the rewrite reaching the
// outcome only with allow_mutation: [toolResult].
func TestResultTruncateThroughTheEngine(t *testing.T) {
	long := strings.Repeat("z", 500)
	for _, tc := range []struct {
		name     string
		mutation []string
		rewrite  bool
	}{
		{"allowed", []string{"toolResult"}, true},
		{"not allowed", nil, false},
	} {
		e := compileOne(t, hooks.Spec{
			ID: "trunc", Event: hooks.PostToolUse, Trusted: true, AllowMutation: tc.mutation,
			Handler: hooks.HandlerSpec{Type: "builtin", Name: ResultTruncateName, With: map[string]any{"max_chars": 100}},
		}, hooks.Deps{})
		out := e.Dispatch(context.Background(), &hooks.Event{Event: hooks.PostToolUse, ToolName: "read", ToolResult: &long})
		if got := out.ToolResult != nil; got != tc.rewrite {
			t.Fatalf("%s: rewritten = %v (%+v)", tc.name, got, out)
		}
		if tc.rewrite {
			checkCut(t, long, *out.ToolResult, 100, 0.5)
		}
	}
}

func FuzzTruncateMiddle(f *testing.F) {
	f.Add("hello world", 100, uint8(50))
	f.Add(strings.Repeat("日本🙂é", 80), 100, uint8(0))
	f.Add(strings.Repeat("\xff\xe2\x82a", 100), 150, uint8(100))
	f.Fuzz(func(t *testing.T, in string, max int, pct uint8) {
		if max < minTruncateMaxChars || max > 4096 || pct > 100 || strings.Contains(in, "[hookgate: ") {
			t.Skip()
		}
		ratio := float64(pct) / 100
		out, cut := truncateMiddle(in, max, ratio)
		if !cut {
			if out != in || utf8.RuneCountInString(in) > max {
				t.Fatal("left a long input uncut, or changed a short one")
			}
			return
		}
		if !utf8.ValidString(in) {
			// Segmentations forwards and backwards may differ around
			// invalid bytes; the cut must still be a prefix and a suffix.
			loc := markerRe.FindStringIndex(out)
			if loc == nil || !strings.HasPrefix(in, out[:loc[0]]) || !strings.HasSuffix(in, out[loc[1]:]) {
				t.Fatal("bad cut of invalid UTF-8")
			}
			return
		}
		checkCut(t, in, out, max, ratio)
		if again, recut := truncateMiddle(out, max, ratio); recut || again != out {
			t.Fatal("a cut result was cut again")
		}
	})
}
