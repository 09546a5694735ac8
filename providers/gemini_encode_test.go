package providers

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

func TestRemoveGeminiCallsMovesSignature(t *testing.T) {
	sse := readFixture(t, "gemini-native/"+geminiFixtureNames[1])
	sp := NewGeminiSSESplitter(0)
	sp.Feed(sse)
	sp.End()
	blk, ok, err := sp.Next()
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	sig := gjson.GetBytes(blk.Data, "candidates.0.content.parts.0.thoughtSignature").String()
	out, err := RemoveGeminiCalls(blk.Data, 0, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	var f GeminiFrame
	if err := f.Decode(out); err != nil {
		t.Fatal(err)
	}
	parts := f.Candidates[0].Parts
	if len(parts) != 1 || parts[0].Call.Name.Text() != "multiply" || parts[0].ThoughtSignature.Text() != sig {
		t.Fatalf("after removing the first call: %s", out)
	}
	if gjson.GetBytes(out, "candidates.0.finishMessage").String() == "" {
		t.Error("other members lost")
	}
	// Removing the second keeps the first as sent.
	out, err = RemoveGeminiCalls(blk.Data, 0, []int{1})
	if err != nil || gjson.GetBytes(out, "candidates.0.content.parts.#").Int() != 1 || gjson.GetBytes(out, "candidates.0.content.parts.0.thoughtSignature").String() != sig {
		t.Fatalf("%s %v", out, err)
	}
	// Removing both leaves no part; a note can then be appended.
	out, err = RemoveGeminiCalls(blk.Data, 0, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	out, err = AppendGeminiText(out, 0, "blocked by hookgate")
	if err != nil || gjson.GetBytes(out, "candidates.0.content.parts.#").Int() != 1 || gjson.GetBytes(out, "candidates.0.content.parts.0.text").String() != "blocked by hookgate" {
		t.Fatalf("%s %v", out, err)
	}
	if _, err := RemoveGeminiCalls(blk.Data, 1, []int{0}); err == nil {
		t.Error("missing candidate accepted")
	}
}

func TestGeminiSyntheticFramesReadByGenai(t *testing.T) {
	s := newGeminiStreamServer(t)
	frame := GeminiTextFrame("note \"quoted\"", "STOP")
	withText, err := AppendGeminiText([]byte(`{"candidates":[{"index":0}]}`), 0, "disclaimer")
	if err != nil {
		t.Fatal(err)
	}
	calls, errs := s.genaiCalls(geminiSSE(string(frame), string(withText)))
	if errs != 0 || len(calls) != 0 {
		t.Fatalf("genai: %d errors, calls %v", errs, calls)
	}
	var f GeminiFrame
	if err := f.Decode(withText); err != nil || f.Candidates[0].Parts[0].Text.Text() != "disclaimer" {
		t.Fatalf("%s %v", withText, err)
	}
	_, errs = s.genaiCalls(geminiSSE(string(GeminiErrorBody(403, "blocked", ""))))
	if errs != 1 {
		t.Fatalf("error frame: genai yielded %d errors, want 1", errs)
	}
	var e struct {
		Error struct {
			Code    int
			Message string
			Status  string
		}
	}
	if err := json.Unmarshal(GeminiErrorBody(403, "blocked", ""), &e); err != nil || e.Error.Status != "PERMISSION_DENIED" {
		t.Fatal(e, err)
	}
}

func TestGeminiCallKinds(t *testing.T) {
	var f GeminiFrame
	for _, fr := range []string{geminiOddFrames[14], geminiOddFrames[17]} {
		if err := f.Decode([]byte(fr)); err != nil || !f.HasCalls() {
			t.Errorf("%s: %v, calls %v", fr, err, f.HasCalls())
		}
	}
}
