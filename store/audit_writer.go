package store

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
)

// The audit queue's policies when it is full (audit.on_full).
const (
	// OnFullBlock: the caller waits for room up to MaxWait; past that the
	// record is dropped (counted and logged) and Admit refuses requests
	// until the writer catches up. Compliance over latency.
	OnFullBlock = "block"
	// OnFullDrop: the record is dropped at once (counted and logged).
	OnFullDrop = "drop"
)

// Defaults of AuditOptions.
const (
	DefaultAuditQueue   = 4096
	DefaultAuditMaxWait = 2 * time.Second
	DefaultAuditBatch   = 256
)

// AuditOptions configure an AuditWriter. Zero values take the defaults.
type AuditOptions struct {
	// OnFull is OnFullBlock (default) or OnFullDrop.
	OnFull string
	// QueueSize bounds the records waiting to be written.
	QueueSize int
	// MaxWait bounds how long a full queue holds a caller (OnFullBlock).
	MaxWait time.Duration
	// BatchSize bounds the records of one INSERT.
	BatchSize int
	// Key seals error details; nil keeps no error detail at all (never
	// plain text).
	Key *AuditKey
	// Secrets are removed from error texts and captured events before
	// they are stored (the upstreams' API keys, tokens): see also
	// credentialPatterns.
	Secrets []string
	// CaptureTTL is how long a captured event is kept (captured_events'
	// expires_at); zero means DefaultCaptureTTL.
	CaptureTTL time.Duration
	// Registerer receives the writer's metrics; nil registers nothing.
	Registerer prometheus.Registerer
	// Logger receives the writer's log; nil means slog.Default().
	Logger *slog.Logger
}

// AuditEntry is one hook execution as the request path hands it over. The
// writer turns it into an Execution row on its own goroutine: it hashes
// Input, cuts and seals the error.
type AuditEntry struct {
	HookID, HookVersion string
	Event, EventID      string
	SessionID           string
	Decision            string
	Duration            time.Duration
	SideEffects         []string
	// Tool is the tool's name (never its arguments), Tenant and Agent the
	// event's; each is cut to MaxLabelText characters.
	Tool, Tenant, Agent string
	// Reason is the hook's reason; it is cut to ErrorMax characters and
	// redacted like an error.
	Reason string
	// Cause is the error behind an error or timeout decision.
	Cause error
	// Input is what the hook saw; only InputHash(Input) is stored. The
	// caller must not modify it after Record.
	Input any
	// At is when the execution ended; zero means when Record was called.
	At time.Time
	// ToolCall, when set, makes the entry a tool_calls record instead of
	// a hook execution (the audit_log built-in), through the same queue.
	ToolCall *ToolCall
	// Capture, when set, makes the entry a captured_events record
	// (audit.capture_events) instead of a hook execution.
	Capture *CaptureRecord

	flushed chan error // a Flush marker, not a record
}

// AuditWriter writes hook executions to hook_executions off the request
// path: Record puts an entry on a bounded queue and one goroutine writes
// batches (INSERT ... ON CONFLICT (dedup_key) DO NOTHING), retrying with
// backoff while the store fails. Nothing is lost silently: every record
// that is not written is counted in hookgate_audit_records_dropped_total
// and logged.
//
// Under OnFullBlock a proxy calls Admit before it dispatches a request's
// hooks and answers 503 when it fails: that is how "the request waits for
// room, then is refused" reaches the client, since Record itself cannot
// fail a request.
type AuditWriter struct {
	st        *Store
	insert    func(context.Context, []Execution) (int64, error)
	onFull    string
	maxWait   time.Duration
	batchSize int
	key       *AuditKey
	redact    *redactor
	ttl       time.Duration
	log       *slog.Logger
	m         *auditMetrics

	queue chan AuditEntry

	// mu: Record and Flush hold it shared while they send, Close takes it
	// whole to set closed, so that no send can follow the final drain.
	mu         sync.RWMutex
	closed     bool
	closedFlag atomic.Bool
	stop       chan struct{}
	done       chan struct{}
	closeCtx   context.Context // set before stop is closed

	// fullSince is when the queue was last seen full with no batch taken
	// since (unix nanoseconds), or 0.
	fullSince atomic.Int64
	waiters   atomic.Int32
	roomMu    sync.Mutex
	room      chan struct{} // closed when the writer takes a batch

	// lost counts the records given up at Close.
	lost atomic.Int64

	dropLog rateLog
	failLog rateLog
}

// NewAuditWriter starts a writer on st. Close it to flush and stop.
func NewAuditWriter(st *Store, opts AuditOptions) (*AuditWriter, error) {
	w, err := newAuditWriter(st, opts)
	if err != nil {
		return nil, err
	}
	if w.key == nil {
		w.log.Warn("audit: no key (audit.key_env): error details are not kept, only their first 256 characters")
	}
	go w.run()
	return w, nil
}

// newAuditWriter builds a writer without starting its goroutine.
func newAuditWriter(st *Store, opts AuditOptions) (*AuditWriter, error) {
	w := &AuditWriter{
		st:        st,
		insert:    st.InsertExecutions,
		onFull:    opts.OnFull,
		maxWait:   opts.MaxWait,
		batchSize: opts.BatchSize,
		key:       opts.Key,
		redact:    newRedactor(opts.Secrets),
		ttl:       opts.CaptureTTL,
		log:       opts.Logger,
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	switch w.onFull {
	case "":
		w.onFull = OnFullBlock
	case OnFullBlock, OnFullDrop:
	default:
		return nil, fmt.Errorf("store: audit on_full %q: want block or drop", w.onFull)
	}
	size := opts.QueueSize
	if size <= 0 {
		size = DefaultAuditQueue
	}
	if w.maxWait <= 0 {
		w.maxWait = DefaultAuditMaxWait
	}
	if w.batchSize <= 0 {
		w.batchSize = DefaultAuditBatch
	}
	if w.ttl <= 0 {
		w.ttl = DefaultCaptureTTL
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	w.queue = make(chan AuditEntry, size)
	m, err := newAuditMetrics(opts.Registerer, func() float64 { return float64(len(w.queue)) })
	if err != nil {
		return nil, fmt.Errorf("store: audit metrics: %w", err)
	}
	w.m = m
	return w, nil
}

// Record queues one execution. It never writes to the store itself. With
// room in the queue it returns at once; when the queue is full, OnFullDrop
// drops the record and OnFullBlock waits up to MaxWait for room (not at
// all once the queue has been full that long), then drops it. Drops are
// counted and logged.
func (w *AuditWriter) Record(e AuditEntry) { w.enqueue(e, w.onFull == OnFullBlock) }

// TryRecord is Record that never waits, whatever OnFull says: with no room
// in the queue the record is dropped (counted as queue_full, and logged).
// It is for records made on the request path that must not hold it up
// (a dropped dry run's row): their own metric stays the record of last
// resort.
func (w *AuditWriter) TryRecord(e AuditEntry) { w.enqueue(e, false) }

// enqueue queues e; with the queue full it drops e at once, or, when
// mayWait, waits for room as Record describes.
func (w *AuditWriter) enqueue(e AuditEntry, mayWait bool) {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.drop(DropClosed)
		return
	}
	select {
	case w.queue <- e:
		return
	default:
	}
	left := w.markFull()
	if !mayWait {
		w.drop(DropQueueFull)
		return
	}
	if left <= 0 {
		w.drop(DropWaitTimeout)
		return
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case w.queue <- e:
	case <-t.C:
		w.drop(DropWaitTimeout)
	}
}

// Admit tells a request whether it may run its hooks: nil when the audit
// can take their records, an error wrapping ErrAuditBackpressure when the
// queue has had no room for MaxWait (the caller answers 503 with
// Retry-After and runs nothing), ErrClosed once Close has begun, or ctx's
// error. Under OnFullDrop it always admits. With room it returns at once;
// with a full queue it waits for room only until the queue has been full
// for MaxWait, so that while the store is down requests fail fast.
//
//	if err := audit.Admit(ctx); err != nil {
//		return 503 // hookgate_audit_unavailable
//	}
//	out := engine.Dispatch(ctx, ev)
func (w *AuditWriter) Admit(ctx context.Context) error {
	if w.onFull == OnFullDrop {
		return nil
	}
	if w.closedFlag.Load() {
		return fmt.Errorf("store: audit: %w", ErrClosed)
	}
	if len(w.queue) < cap(w.queue) {
		return nil
	}
	left := w.markFull()
	if left <= 0 {
		return w.refuse()
	}
	w.waiters.Add(1)
	defer w.waiters.Add(-1)
	t := time.NewTimer(left)
	defer t.Stop()
	for {
		room := w.roomChan()
		if len(w.queue) < cap(w.queue) {
			return nil
		}
		select {
		case <-room:
		case <-t.C:
			return w.refuse()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (w *AuditWriter) refuse() error {
	w.m.refused.Inc()
	return fmt.Errorf("%w: no room for %s (the store is slow or down)", ErrAuditBackpressure, w.maxWait)
}

// markFull notes that the queue is full and returns how much of MaxWait is
// left since it became so.
func (w *AuditWriter) markFull() time.Duration {
	now := time.Now().UnixNano()
	w.fullSince.CompareAndSwap(0, now)
	since := w.fullSince.Load()
	if since == 0 { // the writer took a batch in between
		return w.maxWait
	}
	return w.maxWait - time.Duration(now-since)
}

func (w *AuditWriter) roomChan() chan struct{} {
	w.roomMu.Lock()
	defer w.roomMu.Unlock()
	if w.room == nil {
		w.room = make(chan struct{})
	}
	return w.room
}

// roomFreed is called by the writer each time it takes a batch.
func (w *AuditWriter) roomFreed() {
	w.fullSince.Store(0)
	if w.waiters.Load() == 0 {
		return
	}
	w.roomMu.Lock()
	if w.room != nil {
		close(w.room)
		w.room = nil
	}
	w.roomMu.Unlock()
}

func (w *AuditWriter) drop(reason string) {
	w.m.dropped.WithLabelValues(reason).Inc()
	if w.dropLog.allow() {
		w.log.Error("audit records dropped", "reason", reason, "on_full", w.onFull,
			"queue_size", cap(w.queue), "max_wait", w.maxWait.String(),
			"hint", "the store is slow or down; see hookgate_audit_records_dropped_total")
	}
}

// depth is the number of records waiting.
func (w *AuditWriter) depth() int { return len(w.queue) }

// Flush waits until every record queued before the call is written (or
// given up at Close). It returns the write's error, if any.
func (w *AuditWriter) Flush(ctx context.Context) error {
	marker := AuditEntry{flushed: make(chan error, 1)}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return fmt.Errorf("store: audit flush: %w", ErrClosed)
	}
	select {
	case w.queue <- marker:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return ctx.Err()
	}
	select {
	case err := <-marker.flushed:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops taking records and writes those queued. If ctx ends first
// (the store down), what is left is counted as dropped and the error says
// how many. Close is idempotent; Records after it are dropped (counted).
func (w *AuditWriter) Close(ctx context.Context) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		<-w.done
		return nil
	}
	w.closed = true
	w.closedFlag.Store(true)
	w.closeCtx = ctx
	w.mu.Unlock()
	close(w.stop)
	<-w.done // the writer gives up once ctx ends
	if n := w.lost.Load(); n > 0 {
		return fmt.Errorf("store: audit: %d record(s) not written before close: %w", n, context.Cause(ctx))
	}
	return nil
}

// stopping reports whether Close has begun; closeCtx is then readable.
func (w *AuditWriter) stopping() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// rateLog lets one line through per interval.
type rateLog struct{ last atomic.Int64 }

const rateLogEvery = 10 * time.Second

func (r *rateLog) allow() bool {
	now := time.Now().UnixNano()
	last := r.last.Load()
	return (last == 0 || now-last >= int64(rateLogEvery)) && r.last.CompareAndSwap(last, now)
}

// inputIdentity is the pointer behind an input, so that the hooks of one
// chain, which share the event, hash it once; 0 for values.
func inputIdentity(v any) uintptr {
	if v == nil {
		return 0
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		return rv.Pointer()
	}
	return 0
}

// newExecutionID is time-ordered (UUID v7), so rows sort as they came.
func newExecutionID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
