package providers

import (
	"errors"
	"testing"
)

// An error frame is passed on unjudged, so one that carries a
// functionCall beside its error is refused: a client reading candidates
// would run the call. An error frame without calls is still the
// upstream's error.
func TestGeminiErrorFrameWithCallIsRefused(t *testing.T) {
	const errMember = `"error":{"code":500,"message":"x","status":"INTERNAL"}`
	const call = `"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"rm","args":{"path":"/"}}}]},"finishReason":"STOP"}]`
	var f CodecFrame
	for _, body := range []string{"{" + errMember + "," + call + "}", "{" + call + "," + errMember + "}"} {
		if err := GeminiCodec.DecodeFrame([]byte(body), &f); !errors.Is(err, ErrUnjudgedCall) {
			t.Errorf("%s: DecodeFrame = %v, want ErrUnjudgedCall", body, err)
		}
	}
	text := `{` + errMember + `,"candidates":[{"content":{"role":"model","parts":[{"text":"partial"}]}}]}`
	if err := GeminiCodec.DecodeFrame([]byte(text), &f); err != nil || !f.Error || len(f.Calls) != 0 {
		t.Errorf("error frame with text: err %v, Error %v, calls %d; want the upstream's error", err, f.Error, len(f.Calls))
	}
	nullErr := `{"error":null,` + call + `}`
	if err := GeminiCodec.DecodeFrame([]byte(nullErr), &f); err != nil || f.Error || len(f.Calls) != 1 {
		t.Errorf("error null beside a call: err %v, Error %v, calls %d; want the call read", err, f.Error, len(f.Calls))
	}
}
