package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
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

// BenchmarkAuditWrite is the writer's side: records into a real store
// (hash, batch insert), reported as ns per record. Each record has its own
// event, as on a busy proxy; the queue keeps the writer's batches full.
func BenchmarkAuditWrite(b *testing.B) {
	targets := map[string]Options{"sqlite": {Path: filepath.Join(b.TempDir(), "bench.db")}}
	if dsn := os.Getenv(pgDSNEnv); dsn != "" {
		targets["postgres"] = Options{Driver: Postgres, DSN: pgSchema(b, dsn)}
	}
	for _, name := range []string{"sqlite", "postgres"} {
		opts, ok := targets[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			opts.Logger = quietLog()
			st, err := Open(context.Background(), opts)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			w, err := NewAuditWriter(st, AuditOptions{QueueSize: 1 << 14, Logger: quietLog()})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				id := strconv.Itoa(i)
				ev := &benchEvent{Event: "pre_tool_use", EventID: id, ToolName: "exec", ToolInput: map[string]any{"command": "ls -la /srv/" + id}}
				w.Record(AuditEntry{HookID: "deny", Event: "pre_tool_use", EventID: id, SessionID: "s1", Decision: "allow", Input: ev})
			}
			if err := w.Close(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
	}
}
