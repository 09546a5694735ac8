package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// stall takes the store's write lock from another connection, as another
// process or a stuck transaction would: the writer's INSERTs wait (or fail
// and retry) until release.
func stall(t *testing.T, opts Options) (release func()) {
	t.Helper()
	ctx := context.Background()
	var once bool
	switch opts.Driver {
	case Postgres:
		conn, err := pgx.Connect(ctx, opts.DSN)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := conn.Begin(ctx)
		if err == nil {
			_, err = tx.Exec(ctx, `LOCK TABLE hook_executions IN EXCLUSIVE MODE`)
		}
		if err != nil {
			t.Fatal(err)
		}
		release = func() {
			if !once {
				once = true
				tx.Rollback(ctx)
				conn.Close(ctx)
			}
		}
	default:
		db, err := sql.Open("sqlite", "file:"+opts.Path)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := db.Conn(ctx)
		if err == nil {
			_, err = conn.ExecContext(ctx, `BEGIN IMMEDIATE`)
		}
		if err != nil {
			t.Fatal(err)
		}
		release = func() {
			if !once {
				once = true
				conn.ExecContext(ctx, `ROLLBACK`)
				conn.Close()
				db.Close()
			}
		}
	}
	t.Cleanup(release)
	return release
}

func newTestWriter(t *testing.T, st *Store, opts AuditOptions) (*AuditWriter, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts.Registerer = reg
	if opts.Logger == nil {
		opts.Logger = quietLog()
	}
	w, err := NewAuditWriter(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		w.Close(ctx)
	})
	return w, reg
}

// watchInserts makes the writer tell when it starts an INSERT. Set before
// the first Record: the queue orders the assignment before the writer's
// read.
func watchInserts(w *AuditWriter) <-chan struct{} {
	entered := make(chan struct{}, 1)
	insert := w.insert
	w.insert = func(ctx context.Context, xs []Execution) (int64, error) {
		select {
		case entered <- struct{}{}:
		default:
		}
		return insert(ctx, xs)
	}
	return entered
}

// recordFirst queues one record and waits until the writer is inside its
// INSERT (stalled), so that the queue fills from empty.
func recordFirst(t *testing.T, w *AuditWriter, entered <-chan struct{}) {
	t.Helper()
	w.Record(entry("h", "first", nil))
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer never started writing")
	}
	if w.depth() != 0 {
		t.Fatalf("depth %d after the writer took the first record", w.depth())
	}
}

func entry(hookID, eventID string, input any) AuditEntry {
	return AuditEntry{HookID: hookID, HookVersion: "v1", Event: "pre_tool_use", EventID: eventID, SessionID: "s1",
		Decision: "allow", Duration: 2 * time.Millisecond, Input: input}
}

func flush(t *testing.T, w *AuditWriter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, st *Store) int64 {
	t.Helper()
	n, err := st.CountExecutions(context.Background(), ExecutionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const (
	rawCanary    = "RAW-INPUT-CANARY-7f3a"
	secretCanary = "upstream-secret-CANARY-0042"
	// tailCanary ends an error past ErrorMax: only the sealed detail has it.
	tailCanary = "TAIL-OF-ERROR-CANARY"
)

func TestAuditWriterRecordsEveryExecutionOnce(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		opts := tg.fill(t, Options{})
		st := openTest(t, opts)
		key, _ := ParseAuditKey(hex.EncodeToString(testKeyRaw))
		w, reg := newTestWriter(t, st, AuditOptions{Key: key, Secrets: []string{secretCanary}, BatchSize: 7})

		const events, hooksPerEvent, redelivered = 10, 5, 20
		inputs := map[string]map[string]any{}
		for e := range events {
			inputs[fmt.Sprint("ev", e)] = map[string]any{"toolName": "exec", "toolInput": map[string]any{"command": rawCanary, "n": e}}
		}
		execution := func(h, e int) AuditEntry {
			eventID := fmt.Sprint("ev", e)
			x := entry(fmt.Sprint("hook", h), eventID, inputs[eventID])
			if h == 0 {
				x.Decision = "error"
				x.Cause = errors.New("policy server said: bad key " + secretCanary + "; " + strings.Repeat("détail ", 60) + tailCanary)
			}
			return x
		}
		recorded := 0
		for e := range events {
			for h := range hooksPerEvent {
				w.Record(execution(h, e))
				recorded++
			}
		}
		// An event delivered again is judged again: each run is a row.
		for i := range redelivered {
			w.Record(execution(i%hooksPerEvent, i%events))
			recorded++
		}
		flush(t, w)

		if n := count(t, st); n != int64(recorded) {
			t.Fatalf("%d rows for %d executions", n, recorded)
		}
		if got := testutil.ToFloat64(w.m.written); got != float64(recorded) {
			t.Fatalf("written counter %v", got)
		}
		if got := testutil.ToFloat64(w.m.duplicates); got != 0 {
			t.Fatalf("duplicate counter %v", got)
		}
		if n, err := testutil.GatherAndCount(reg, "hookgate_audit_queue_depth"); err != nil || n != 1 {
			t.Fatalf("queue depth gauge: %d %v", n, err)
		}

		// The writer's own redelivery of rows already written is not.
		again, err := st.ListExecutions(ctx, ExecutionFilter{HookID: "hook2"})
		if err != nil || len(again) == 0 {
			t.Fatalf("%d rows of hook2 (%v)", len(again), err)
		}
		if n, err := st.InsertExecutions(ctx, again); err != nil || n != 0 {
			t.Fatalf("a batch written again inserted %d rows (%v)", n, err)
		}
		if n := count(t, st); n != int64(recorded) {
			t.Fatalf("%d rows after a batch was written again, want %d", n, recorded)
		}

		rows, _ := st.ListExecutions(ctx, ExecutionFilter{HookID: "hook0"})
		if len(rows) != events+redelivered/hooksPerEvent {
			t.Fatalf("%d rows of hook0", len(rows))
		}
		other, _ := ParseAuditKey(hex.EncodeToString(bytes.Repeat([]byte{9}, 32)))
		for _, r := range rows {
			eventID := strings.SplitN(strings.SplitN(r.DedupKey, "|", 2)[0], ":", 3)[2]
			if want, _ := InputHash(inputs[eventID]); r.InputHash != want {
				t.Fatalf("input hash %s, want %s", r.InputHash, want)
			}
			if utf8.RuneCountInString(r.Error) != ErrorMax || strings.Contains(r.Error, secretCanary) {
				t.Fatalf("error column (%d chars): %q", utf8.RuneCountInString(r.Error), r.Error)
			}
			detail, err := key.Open(r.ID, r.ErrorDetail)
			if err != nil || !strings.HasPrefix(detail, r.Error) || !strings.HasSuffix(detail, tailCanary) || strings.Contains(detail, secretCanary) {
				t.Fatalf("detail %q: %v", detail, err)
			}
			if _, err := other.Open(r.ID, r.ErrorDetail); err == nil {
				t.Fatal("detail readable without the key")
			}
			if r.Duration != 2*time.Millisecond || r.Decision != "error" || r.SessionID != "s1" || r.HookVersion != "v1" {
				t.Fatalf("row %+v", r)
			}
		}
		assertNotStored(t, st, opts, rawCanary, secretCanary, tailCanary)
	})
}

// assertNotStored looks for texts anywhere in the database: the SQLite
// files byte by byte, every PostgreSQL row as text.
func assertNotStored(t *testing.T, st *Store, opts Options, texts ...string) {
	t.Helper()
	var hay []byte
	if st.Driver() == SQLite {
		for _, suffix := range []string{"", "-wal"} {
			b, err := os.ReadFile(opts.Path + suffix)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			hay = append(hay, b...)
		}
	} else {
		var s string
		if err := st.b.reader().queryRow(context.Background(), `SELECT COALESCE(string_agg(t::text, ' '), '') FROM hook_executions t`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		hay = []byte(s)
	}
	if len(hay) == 0 {
		t.Fatal("nothing to search")
	}
	for _, s := range texts {
		if bytes.Contains(hay, []byte(s)) {
			t.Errorf("%q is stored in plain text", s)
		}
	}
}

func TestAuditWriterDropPolicyCounts(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		opts := tg.fill(t, Options{BusyTimeout: 20 * time.Millisecond})
		st := openTest(t, opts)
		w, _ := newTestWriter(t, st, AuditOptions{OnFull: OnFullDrop, QueueSize: 4})
		entered := watchInserts(w)
		release := stall(t, opts)

		recordFirst(t, w, entered)
		for i := range 10 {
			w.Record(entry("h", fmt.Sprint("e", i), nil))
		}
		if err := w.Admit(context.Background()); err != nil {
			t.Fatalf("drop policy refused a request: %v", err)
		}
		dropped := testutil.ToFloat64(w.m.dropped.WithLabelValues(DropQueueFull))
		if dropped != 6 {
			t.Fatalf("dropped %v, want 6", dropped)
		}
		release()
		flush(t, w)
		if n := count(t, st); n+int64(dropped) != 11 {
			t.Fatalf("%d written + %v dropped != 11 recorded: lost silently", n, dropped)
		}
	})
}

func TestAuditWriterBlockPolicyRefusesAfterMaxWait(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		opts := tg.fill(t, Options{BusyTimeout: 20 * time.Millisecond})
		st := openTest(t, opts)
		const maxWait = 150 * time.Millisecond
		w, _ := newTestWriter(t, st, AuditOptions{OnFull: OnFullBlock, QueueSize: 4, MaxWait: maxWait})
		entered := watchInserts(w)
		release := stall(t, opts)
		ctx := context.Background()

		recordFirst(t, w, entered)
		for i := range 4 {
			w.Record(entry("h", fmt.Sprint("e", i), nil))
		}
		if w.depth() != 4 {
			t.Fatalf("depth %d", w.depth())
		}
		start := time.Now()
		err := w.Admit(ctx)
		if !errors.Is(err, ErrAuditBackpressure) {
			t.Fatalf("admit with a stalled store: %v", err)
		}
		if waited := time.Since(start); waited < maxWait/2 {
			t.Fatalf("refused after %s without waiting for room", waited)
		}
		// Full for longer than max_wait now: refused at once.
		start = time.Now()
		if err := w.Admit(ctx); !errors.Is(err, ErrAuditBackpressure) || time.Since(start) > maxWait/2 {
			t.Fatalf("second admit: %v after %s", err, time.Since(start))
		}
		// A record that arrives anyway is dropped at once, and counted.
		start = time.Now()
		w.Record(entry("h", "late", nil))
		if time.Since(start) > maxWait/2 {
			t.Fatalf("record waited %s past max_wait", time.Since(start))
		}
		dropped := testutil.ToFloat64(w.m.dropped.WithLabelValues(DropWaitTimeout))
		if dropped != 1 || testutil.ToFloat64(w.m.refused) != 2 {
			t.Fatalf("dropped %v refused %v", dropped, testutil.ToFloat64(w.m.refused))
		}

		release()
		flush(t, w)
		if err := w.Admit(ctx); err != nil {
			t.Fatalf("admit after the store recovered: %v", err)
		}
		if n := count(t, st); n != 5 || n+int64(dropped) != 6 {
			t.Fatalf("%d written, %v dropped, 6 recorded", n, dropped)
		}
	})
}

func TestAuditWriterAdmitWaitsForRoom(t *testing.T) {
	st := openTest(t, Options{Path: filepath.Join(t.TempDir(), "a.db")})
	gate := make(chan struct{})
	w, _ := newTestWriter(t, st, AuditOptions{QueueSize: 2, MaxWait: 5 * time.Second})
	w.insert = func(ctx context.Context, xs []Execution) (int64, error) {
		<-gate
		return st.InsertExecutions(ctx, xs)
	}
	entered := watchInserts(w)
	recordFirst(t, w, entered)
	w.Record(entry("h", "a", nil))
	w.Record(entry("h", "b", nil))
	time.AfterFunc(100*time.Millisecond, func() { close(gate) })
	start := time.Now()
	if err := w.Admit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond || waited > 4*time.Second {
		t.Fatalf("admitted after %s", waited)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	flush(t, w)
	if err := w.Admit(ctx); err != nil {
		t.Fatalf("admit with room: %v", err)
	}
}

func TestAuditWriterCloseFlushes(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		st := tg.open(t, Options{})
		w, _ := newTestWriter(t, st, AuditOptions{QueueSize: 4096})
		const n = 2000
		for i := range n {
			w.Record(entry(fmt.Sprint("h", i%3), fmt.Sprint("e", i), map[string]any{"i": i}))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if got := count(t, st); got != n {
			t.Fatalf("%d rows after close, want %d", got, n)
		}
		w.Record(entry("h", "after", nil))
		if testutil.ToFloat64(w.m.dropped.WithLabelValues(DropClosed)) != 1 {
			t.Fatal("a record after close was not counted as dropped")
		}
		if err := w.Admit(ctx); !errors.Is(err, ErrClosed) {
			t.Fatalf("admit after close: %v", err)
		}
		if err := w.Close(ctx); err != nil {
			t.Fatalf("second close: %v", err)
		}
	})
}

func TestAuditWriterCloseGivesUpWhenTheStoreIsDown(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		opts := tg.fill(t, Options{BusyTimeout: 20 * time.Millisecond})
		st := openTest(t, opts)
		w, _ := newTestWriter(t, st, AuditOptions{})
		stall(t, opts)
		for i := range 3 {
			w.Record(entry("h", fmt.Sprint("e", i), nil))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := w.Close(ctx)
		if err == nil || !strings.Contains(err.Error(), "3 record(s) not written") {
			t.Fatalf("close: %v", err)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("close took %s", time.Since(start))
		}
		if got := testutil.ToFloat64(w.m.dropped.WithLabelValues(DropClosed)); got != 3 {
			t.Fatalf("dropped %v", got)
		}
	})
}

func TestAuditWriterWithoutKeyKeepsNoDetail(t *testing.T) {
	st := openTest(t, Options{Path: MemoryPath})
	w, _ := newTestWriter(t, st, AuditOptions{})
	x := entry("h", "e", nil)
	x.Cause = errors.New("boom")
	w.Record(x)
	flush(t, w)
	rows, _ := st.ListExecutions(context.Background(), ExecutionFilter{})
	if len(rows) != 1 || rows[0].Error != "boom" || rows[0].ErrorDetail != nil {
		t.Fatalf("%+v", rows)
	}
}

func TestAuditWriterEventlessEntriesAreNeverDeduplicated(t *testing.T) {
	st := openTest(t, Options{Path: MemoryPath})
	w, _ := newTestWriter(t, st, AuditOptions{})
	w.Record(entry("h", "", nil))
	w.Record(entry("h", "", nil))
	flush(t, w)
	if n := count(t, st); n != 2 {
		t.Fatalf("%d rows", n)
	}
}
