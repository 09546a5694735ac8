package proxy

import (
	"time"

	"github.com/valyala/fasthttp"
)

// staleConnWindow is how soon after a request was written a connection
// that closes without a byte of response counts as one the upstream had
// dropped while it sat idle in the pool (a restart, a keep-alive timeout
// shorter than hookgate's), rather than one on which the upstream took
// the request and then failed. A server that drops an idle connection
// answers the request's arrival with a FIN or RST at once, well inside it.
const staleConnWindow = time.Second

// upstreamAttempts bounds how often one request is sent: once, and once
// more on a new connection when the first went out on a dropped keep-alive
// connection.
const upstreamAttempts = 2

// staleConnRetry is the upstream client's transport: fasthttp's own, with
// the decision whether a failed exchange may be sent again. fasthttp on
// its own would send a GET, HEAD or PUT up to five times after any error
// (a first-byte timeout included) and a POST never; hookgate sends any
// request again exactly when it cannot have reached the upstream's
// application (droppedBeforeRequest), whatever its method, and nothing
// else. The request is never streamed from the client (its body is
// bytes in hand), and nothing of a response has gone to the client
// before this decision.
type staleConnRetry struct{}

func (staleConnRetry) RoundTrip(hc *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	_, err := fasthttp.DefaultTransport.RoundTrip(hc, req, resp)
	c := upstreamConnOf(resp.LocalAddr())
	if err == nil {
		if c != nil {
			c.served.Store(true)
		}
		return false, nil
	}
	if c == nil || !c.droppedBeforeRequest(err, staleConnWindow) {
		return false, err
	}
	// The upstream dropped a pooled connection; after a restart it has
	// dropped all of them, so the idle ones go too and the second attempt
	// dials a new connection instead of taking the next dead one.
	hc.CloseIdleConnections()
	return true, err
}

// retryDropped lets fasthttp make the second attempt staleConnRetry asked
// for; upstreamAttempts stops it there.
func retryDropped(*fasthttp.Request, int, error) (resetTimeout, retry bool) {
	return false, true
}
