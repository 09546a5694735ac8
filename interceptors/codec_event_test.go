package interceptors

import (
	"testing"

	"github.com/hookgate/hookgate/providers"
)

// A call without an id is named by the request it answers, its place and
// its content: the same call in a later turn (a longer history) is
// another event, so no approval or audit row of the first stands for it;
// the same request sent again names its calls as before.
func TestCodecCallsWithoutIDGetOneEventIDPerRequest(t *testing.T) {
	call := providers.CodecCall{Name: "pay", Args: []byte(`{"amount":900}`), Key: "part0"}
	eventID := func(body string) string {
		x := &codecExchange{body: []byte(body)}
		x.id = &identity{session: "s"}
		return x.callEvent(&call).EventID
	}
	first, resent, later := eventID(`{"contents":[1]}`), eventID(`{"contents":[1]}`), eventID(`{"contents":[1,2,3]}`)
	if first != resent {
		t.Errorf("the same request names its call %s, then %s", first, resent)
	}
	if first == later {
		t.Errorf("a call in a later turn shares the event id %s of an earlier one", first)
	}
	withID := call
	withID.ID = "call-1"
	x := &codecExchange{body: []byte(`{}`)}
	x.id = &identity{session: "s"}
	if ev := x.callEvent(&withID); ev.ToolCallID != "call-1" || ev.EventID == first {
		t.Errorf("a call with an id: event %+v", ev)
	}
}
