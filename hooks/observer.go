package hooks

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/trace"
)

// observerPool runs observing hooks off the request path: a fixed number of
// workers and a bounded queue. Submitting never blocks: a full queue drops
// the event and counts it.
type observerPool struct {
	e      *Engine
	queue  chan observerJob
	wg     sync.WaitGroup
	mu     sync.RWMutex // guards closed against submits racing stop
	closed bool
}

type observerJob struct {
	ev    *Event
	hooks []*hook
	// dry marks a job of dry_run hooks (runDryRun), not observers.
	dry bool
	// parent is the span the event was dispatched under (nil untraced):
	// the observers' spans hang under it after it has ended.
	parent trace.Span
}

func newObserverPool(e *Engine, workers, queue int) *observerPool {
	p := &observerPool{e: e, queue: make(chan observerJob, queue)}
	p.wg.Add(workers)
	for range workers {
		go p.work()
	}
	return p
}

// observe queues the observing hooks of an event, or drops them.
func (e *Engine) observe(ev *Event, hooks []*hook, parent trace.Span) {
	if e.pool == nil || !e.acquire() {
		for _, h := range hooks {
			e.rec.ObserverDropped(ev.Event, h.id)
		}
		return
	}
	// The job keeps its own copy of the event struct: the caller may reuse
	// its Event once Dispatch returns (its maps are shared, read-only).
	cp := *ev
	if !e.pool.submit(observerJob{ev: &cp, hooks: hooks, parent: parent}) {
		e.release()
		for _, h := range hooks {
			e.rec.ObserverDropped(ev.Event, h.id)
		}
		e.log.Debug("observer pool full: event dropped", "event", ev.Event, "hooks", len(hooks))
	}
}

func (p *observerPool) submit(j observerJob) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return false
	}
	select {
	case p.queue <- j:
		return true
	default:
		return false
	}
}

func (p *observerPool) work() {
	defer p.wg.Done()
	for j := range p.queue {
		p.run(j)
	}
}

func (p *observerPool) run(j observerJob) {
	defer p.e.release()
	ctx := context.Background()
	if j.parent != nil {
		ctx = trace.ContextWithSpan(ctx, j.parent)
	}
	if j.dry {
		for _, h := range j.hooks {
			p.e.runDryRun(ctx, h, j.ev)
		}
		return
	}
	for _, h := range j.hooks {
		res, x, ran, sp := p.e.execute(ctx, h, j.ev, p.e.slots)
		if !ran {
			continue
		}
		p.e.stripObserved(h, j.ev, res, &x)
		x.Applied = x.Decision
		x.Observed = true
		endHookSpan(sp, &x)
		p.e.rec.HookExecuted(x)
	}
}

// stop closes the queue and waits for the workers to finish what was queued.
func (p *observerPool) stop() {
	p.mu.Lock()
	p.closed = true
	close(p.queue)
	p.mu.Unlock()
	p.wg.Wait()
}
