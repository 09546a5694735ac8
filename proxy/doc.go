// Package proxy owns hookgate's sockets: the agent-facing listener, the
// upstream clients, routing by path and upstream, passthrough of everything
// that is not intercepted, event-by-event flushing of streams, timeouts, the
// admin listener (metrics, health) and graceful shutdown.
//
// It knows nothing of wire formats' insides nor of hook semantics: for a
// route hookgate reads, it hands the body and the upstream's response to an
// interceptor and relays what comes back.
package proxy
