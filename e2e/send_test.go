package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

func TestPreResponseSendGoesToTheChannelAndLeavesTheAnswer(t *testing.T) {
	got := make(chan map[string]any, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		got <- m
	}))
	t.Cleanup(hook.Close)
	s := startStack(t, `channels:
  - name: ops
    type: webhook
    url: `+hook.URL+`
hooks:
  - id: tell-ops
    event: pre_response
    mode: send
    handler:
      type: script
      source: |
        function handle(e) { return { decision: "allow", additionalContext: "answered: " + e.response }; }
`)
	answer := mockupstream.StreamSpec{Texts: []string{"All ", "done."}}
	s.mock.Enqueue(mockupstream.Stream(answer.SSE(), mockupstream.Chunking{Mode: mockupstream.PerEvent}))
	if a := goOpenAIStream(t, s.app.URL()); a.Content != "All done." {
		t.Fatalf("mode send changed the answer: %s", a)
	}
	select {
	case m := <-got:
		if m["text"] != "answered: All done." {
			t.Fatalf("channel got %v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the channel got nothing")
	}
}
