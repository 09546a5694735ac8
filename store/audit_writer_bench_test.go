package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchEvent stands for the *hooks.Event a recorder hands over: a pointer
// the writer hashes later.
type benchEvent struct {
	Event     string         `json:"event"`
	EventID   string         `json:"eventId"`
	ToolName  string         `json:"toolName"`
	ToolInput map[string]any `json:"toolInput"`
}

// BenchmarkAuditRecord is the request path's cost: Record and Admit with
// room in the queue. A bare goroutine empties the queue in place of the
// writer, so that the writer's own work (which runs off the request path)
// is neither timed nor counted in the allocations.
func BenchmarkAuditRecord(b *testing.B) {
	w, err := newAuditWriter(nil, AuditOptions{QueueSize: 1 << 16, Logger: quietLog()})
	if err != nil {
		b.Fatal(err)
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for range w.queue {
			if len(w.queue) == 0 {
				w.roomFreed()
			}
		}
	}()
	ev := &benchEvent{Event: "pre_tool_use", EventID: "ev-1", ToolName: "exec", ToolInput: map[string]any{"command": "ls"}}
	x := AuditEntry{HookID: "deny", HookVersion: "v1", Event: "pre_tool_use", EventID: "ev-1", SessionID: "s1",
		Decision: "allow", Duration: time.Millisecond, Input: ev, SideEffects: []string{"checked"}}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			w.Record(x)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				w.Record(x)
			}
		})
	})
	b.Run("admit", func(b *testing.B) {
		b.ReportAllocs()
		ctx := context.Background()
		for b.Loop() {
			if err := w.Admit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	close(w.queue)
	<-drained
}

// BenchmarkAuditWrite is the writer's side: records per second into a
// real SQLite file (hash, seal, batch insert), reported as ns per record.
func BenchmarkAuditWrite(b *testing.B) {
	st, err := Open(context.Background(), Options{Path: filepath.Join(b.TempDir(), "bench.db"), Logger: quietLog()})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	key, _ := ParseAuditKey(fmt.Sprintf("%064x", 1))
	w, err := NewAuditWriter(st, AuditOptions{QueueSize: 1 << 14, Key: key, Logger: quietLog()})
	if err != nil {
		b.Fatal(err)
	}
	ev := &benchEvent{Event: "pre_tool_use", ToolName: "exec", ToolInput: map[string]any{"command": "ls -la /srv"}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		w.Record(AuditEntry{HookID: "deny", Event: "pre_tool_use", EventID: fmt.Sprint("ev", i), SessionID: "s1", Decision: "allow", Input: ev})
	}
	if err := w.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
}
