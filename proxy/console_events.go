package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/valyala/fasthttp"
)

// consoleHeartbeat is how often an idle event stream sends a comment, so
// that proxies keep it open and a browser that left is noticed.
const consoleHeartbeat = 15 * time.Second

// events streams server-sent events to a console page, for as long as
// the page stays, the session lasts and the listener runs:
//
//	event: approvals   data: the questions, as GET /console/api/approvals?status=recent
//	event: decisions   data: {"latest": id} when a new decision was recorded
//
// Each is sent at once, then whenever it changes (looked for every
// EventPoll, in the store, so questions asked through other instances
// show too). The stream ends with session_expired at the session's
// expiry, or within an EventPoll of its logout.
func (c *console) events(ctx *fasthttp.RequestCtx, s consoleSession) {
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.Header.Set("X-Accel-Buffering", "no")
	// The stream writer must not touch ctx: everything it needs is taken
	// here.
	approvals, decisions := c.admin.opts.Approvals, c.opts.Decisions
	poll, done, tenants, until, revoked := c.opts.EventPoll, c.done, s.tok.tenants, s.expires, c.revoked
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		sctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var lastApprovals []byte
		lastDecision := "\x00" // never an id: the first look always sends
		tick := time.NewTicker(poll)
		defer tick.Stop()
		heartbeat := time.NewTicker(consoleHeartbeat)
		defer heartbeat.Stop()
		expiry := time.NewTimer(time.Until(until))
		defer expiry.Stop()
		if _, err := w.WriteString("retry: 2000\n\n"); err != nil || w.Flush() != nil {
			return
		}
		for {
			if approvals != nil {
				if v, err := approvals.List(sctx, "recent", tenants); err == nil {
					if b, err := json.Marshal(v); err == nil && !bytes.Equal(b, lastApprovals) {
						lastApprovals = b
						if !sendEvent(w, "approvals", b) {
							return
						}
					}
				}
			}
			if decisions != nil {
				if id, err := decisions.Latest(sctx, tenants); err == nil && id != lastDecision {
					lastDecision = id
					b, _ := json.Marshal(map[string]string{"latest": id})
					if !sendEvent(w, "decisions", b) {
						return
					}
				}
			}
			select {
			case <-done:
				return
			case <-expiry.C:
				sendEvent(w, "session_expired", []byte(`{}`))
				return
			case <-heartbeat.C:
				if _, err := w.WriteString(": keep-alive\n\n"); err != nil || w.Flush() != nil {
					return
				}
			case <-tick.C:
				// A logout, on any instance, ends the stream too.
				if revoked.check(sctx, s) != nil {
					sendEvent(w, "session_expired", []byte(`{}`))
					return
				}
			}
		}
	})
}

// sendEvent writes one event and flushes it; false once the page is gone.
// A bufio.Writer keeps its first error, so only the flush's is looked at.
func sendEvent(w *bufio.Writer, name string, data []byte) bool {
	_, _ = w.WriteString("event: ")
	_, _ = w.WriteString(name)
	_, _ = w.WriteString("\ndata: ")
	_, _ = w.Write(data) // JSON from json.Marshal holds no newline
	_, _ = w.WriteString("\n\n")
	return w.Flush() == nil
}
