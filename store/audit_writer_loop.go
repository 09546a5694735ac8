package store

import (
	"context"
	"errors"
	"time"
)

// Backoff between attempts to write a batch while the store fails.
const (
	writeRetryMin     = 50 * time.Millisecond
	writeRetryMax     = 5 * time.Second
	writeAttemptLimit = 30 * time.Second
)

// run is the writer goroutine: take what the queue holds (up to a batch),
// write it, repeat; at Close, drain the queue and stop.
func (w *AuditWriter) run() {
	defer close(w.done)
	batch := make([]AuditEntry, 0, w.batchSize)
	for {
		select {
		case e := <-w.queue:
			batch = w.collect(append(batch[:0], e))
			w.write(batch)
		case <-w.stop:
			// Close holds no sender any more: what is queued is all.
			for len(w.queue) > 0 {
				batch = w.collect(batch[:0])
				w.write(batch)
			}
			return
		}
	}
}

// collect adds what the queue holds, up to a batch, and frees the room.
func (w *AuditWriter) collect(batch []AuditEntry) []AuditEntry {
	for len(batch) < w.batchSize {
		select {
		case e := <-w.queue:
			batch = append(batch, e)
		default:
			w.roomFreed()
			return batch
		}
	}
	w.roomFreed()
	return batch
}

// write stores a batch, retrying with backoff until it succeeds or, once
// Close has begun, until Close's context ends. Flush markers in the batch
// learn the outcome.
func (w *AuditWriter) write(batch []AuditEntry) {
	rows := w.rows(batch)
	var err error
	if len(rows) > 0 {
		err = w.insertRetrying(rows)
	}
	if caps := w.captureRows(batch); len(caps) > 0 {
		if _, cerr := w.st.InsertCaptures(w.closeOrBackground(), caps); cerr != nil {
			w.m.errors.Inc()
			w.log.Error("audit: captured events not recorded", "records", len(caps), "err", cerr)
			err = errors.Join(err, cerr)
		}
	}
	if calls := toolCallRows(batch); len(calls) > 0 {
		if _, cerr := w.st.InsertToolCalls(w.closeOrBackground(), calls); cerr != nil {
			w.m.errors.Inc()
			w.log.Error("audit: tool calls not recorded", "records", len(calls), "err", cerr)
			err = errors.Join(err, cerr)
		}
	}
	for _, e := range batch {
		if e.flushed != nil {
			e.flushed <- err
		}
	}
}

func (w *AuditWriter) insertRetrying(rows []Execution) error {
	backoff := writeRetryMin
	failing := false
	for {
		ctx, cancel := w.attemptContext()
		start := time.Now()
		n, err := w.insert(ctx, rows)
		cancel()
		if err == nil {
			w.m.batch.Observe(time.Since(start).Seconds())
			w.m.written.Add(float64(n))
			w.m.duplicates.Add(float64(int64(len(rows)) - n))
			if failing {
				w.log.Info("audit: store writable again", "records", len(rows))
			}
			return nil
		}
		failing = true
		w.m.errors.Inc()
		if w.failLog.allow() {
			w.log.Error("audit: cannot write records; retrying", "records", len(rows), "queued", len(w.queue), "err", err)
		}
		if w.stopping() && w.closeCtx.Err() != nil {
			w.giveUp(len(rows), err)
			return err
		}
		// Wait out the backoff; Close cuts the wait short once (retry at
		// once), and its context's end stops the retries.
		t := time.NewTimer(backoff)
		if w.stopping() {
			select {
			case <-t.C:
			case <-w.closeCtx.Done():
			}
		} else {
			select {
			case <-t.C:
			case <-w.stop:
			}
		}
		t.Stop()
		backoff = min(backoff*2, writeRetryMax)
	}
}

// attemptContext bounds one INSERT: by Close's context once closing, else
// by writeAttemptLimit so that a hung connection is retried.
func (w *AuditWriter) attemptContext() (context.Context, context.CancelFunc) {
	if w.stopping() {
		return context.WithTimeout(w.closeCtx, writeAttemptLimit)
	}
	// An attempt begun before Close must still end with Close's context:
	// a hung store would otherwise hold Close for the whole attempt limit.
	ctx, cancel := context.WithTimeout(context.Background(), writeAttemptLimit)
	go func() {
		select {
		case <-w.stop:
			w.mu.Lock()
			closeCtx := w.closeCtx
			w.mu.Unlock()
			select {
			case <-closeCtx.Done():
				cancel()
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// giveUp counts the rows of a batch that Close could not wait for, and the
// rest of the queue with them.
func (w *AuditWriter) giveUp(n int, err error) {
	for len(w.queue) > 0 {
		if e := <-w.queue; e.flushed != nil {
			e.flushed <- err
		} else {
			n++
		}
	}
	w.lost.Add(int64(n))
	w.m.dropped.WithLabelValues(DropClosed).Add(float64(n))
	w.log.Error("audit: records not written before close", "records", n, "err", err)
}

// rows turns entries into rows: ids, input hashes (once per shared
// input), cut and sealed errors, dedup keys. Flush markers are skipped.
func (w *AuditWriter) rows(batch []AuditEntry) []Execution {
	out := make([]Execution, 0, len(batch))
	var lastInput uintptr
	var lastHash string
	for _, e := range batch {
		if e.flushed != nil || e.ToolCall != nil || e.Capture != nil {
			continue
		}
		x := Execution{
			ID:          newExecutionID(),
			HookID:      e.HookID,
			SessionID:   e.SessionID,
			Event:       e.Event,
			Decision:    e.Decision,
			HookVersion: e.HookVersion,
			SideEffects: e.SideEffects,
			Duration:    e.Duration,
			CreatedAt:   e.At,
			Tool:        cut(e.Tool, MaxLabelText),
			Tenant:      cut(e.Tenant, MaxLabelText),
			Agent:       cut(e.Agent, MaxLabelText),
		}
		if e.Reason != "" {
			x.Reason = cut(w.redact.redact(e.Reason), ErrorMax)
		}
		if id := inputIdentity(e.Input); id != 0 && id == lastInput {
			x.InputHash = lastHash
		} else {
			h, err := InputHash(e.Input)
			if err != nil {
				w.log.Warn("audit: input cannot be hashed", "hook", e.HookID, "event", e.Event, "err", err)
				h = "unhashable"
			}
			x.InputHash, lastInput, lastHash = h, id, h
		}
		if e.EventID != "" {
			x.DedupKey = RunKey(e.HookID, e.EventID, x.ID)
		} else {
			// Nothing identifies a redelivery: never deduplicate.
			x.DedupKey = "id:" + x.ID
		}
		if e.Cause != nil {
			full := w.redact.redact(e.Cause.Error())
			x.Error = cut(full, ErrorMax)
			if w.key != nil {
				sealed, err := w.key.Seal(x.ID, full)
				if err != nil {
					w.log.Warn("audit: error detail not sealed", "hook", e.HookID, "err", err)
				}
				x.ErrorDetail = sealed
			}
		}
		out = append(out, x)
	}
	return out
}

// toolCallRows are the tool-call records of a batch.
func toolCallRows(batch []AuditEntry) []ToolCall {
	var out []ToolCall
	for _, e := range batch {
		if e.ToolCall != nil {
			out = append(out, *e.ToolCall)
		}
	}
	return out
}

// closeOrBackground bounds a write by Close's context once closing.
func (w *AuditWriter) closeOrBackground() context.Context {
	if w.stopping() && w.closeCtx != nil {
		return w.closeCtx
	}
	return context.Background()
}
