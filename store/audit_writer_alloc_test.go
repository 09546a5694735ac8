//go:build !race

package store

import (
	"testing"
	"time"
)

// Record is on the request path: with room in the queue it allocates
// nothing.
func TestAuditRecordAllocatesNothing(t *testing.T) {
	w, err := newAuditWriter(nil, AuditOptions{QueueSize: 1024, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	ev := &benchEvent{Event: "pre_tool_use", EventID: "e"}
	x := AuditEntry{HookID: "h", Event: "pre_tool_use", EventID: "e", Decision: "allow", Input: ev, At: time.Now()}
	allocs := testing.AllocsPerRun(100, func() {
		w.Record(x)
		<-w.queue
	})
	if allocs != 0 {
		t.Fatalf("Record allocates %.1f times", allocs)
	}
}
