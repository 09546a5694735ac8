package proxy

import (
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/hookgate/hookgate/internal/admission"
)

func TestWantsStream(t *testing.T) {
	for _, tt := range []struct {
		name, uri, accept, body string
		want                    bool
	}{
		{"stream true", "/v1/chat/completions", "", `{"model":"m","stream":true}`, true},
		{"leading space", "/v1/chat/completions", "", " \n{\"stream\": true}", true},
		{"stream false", "/v1/chat/completions", "", `{"model":"m","stream":false}`, false},
		{"no stream", "/v1/chat/completions", "", `{"model":"m"}`, false},
		{"nested stream", "/v1/chat/completions", "", `{"metadata":{"stream":true}}`, false},
		{"string true", "/v1/chat/completions", "", `{"stream":"true"}`, false},
		{"escaped key", "/v1/chat/completions", "", `{"model":"m","\u0073tream":true}`, true},
		{"repeated key, last true", "/v1/chat/completions", "", `{"model":"m","stream":false,"stream":true}`, true},
		{"repeated key, first true", "/v1/chat/completions", "", `{"stream":true,"stream":false}`, true},
		{"not an object", "/v1/files", "", `--boundary {"stream":true}`, false},
		{"accept", "/v1/responses/r1", "text/event-stream", ``, true},
		{"accept, any case", "/v1/responses/r1", "Text/Event-Stream", ``, true},
		{"accept, in a list", "/v1/responses/r1", "application/json;q=0.5, text/event-stream ;q=1", ``, true},
		{"accept, another type", "/v1/responses/r1", "application/json, text/event-streams", ``, false},
		{"query", "/v1/responses/r1?stream=true", "", ``, true},
	} {
		var req fasthttp.Request
		req.SetRequestURI(tt.uri)
		if tt.accept != "" {
			req.Header.Set("Accept", tt.accept)
		}
		if got := wantsStream(&req, []byte(tt.body)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The stream slot is a request user value: fasthttp closes it when it
// resets the request, after the response has been written.
func TestStreamSlotIsReleasedOnceWithTheRequest(t *testing.T) {
	l := admission.New("streams", 1, 0, nil)
	if !l.TryAcquire() {
		t.Fatal("no slot")
	}
	var req fasthttp.Request
	req.SetUserValue(streamSlotKey{}, &streamSlot{l: l})
	req.Reset()
	req.Reset()
	if l.InUse() != 0 {
		t.Fatalf("%d slots held after the request was reset", l.InUse())
	}
}
