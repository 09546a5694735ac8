package proxy

import (
	"errors"
	"fmt"

	"github.com/valyala/fasthttp"
)

// errUnreadStatus discards the connection of an upstream answer hookgate
// did not relay: its body is left unread.
var errUnreadStatus = errors.New("upstream status not relayed on a read route")

// relayableOnReadRoute reports whether an upstream status goes back to the
// client on a route hookgate reads. 2xx is read; 4xx and 5xx go back as
// they are (SDKs raise them as errors). 1xx and 3xx do not, nor a status
// outside 100-599: go-openai takes anything below 400 for a success and
// reads its body, and fetch and net/http follow a 307 or 308 with the
// request's body to wherever Location points, past hookgate. (fasthttp's
// client consumes interim answers such as 100 Continue and 103 Early Hints
// itself; 101 Switching Protocols reaches here.)
func relayableOnReadRoute(status int) bool {
	return status >= 200 && status < 300 || status >= 400 && status < 600
}

// refuseUnreadStatus answers an upstream 1xx or 3xx on a read route with a
// 502 in the route's shape; nothing of the upstream's answer (Location,
// body) reaches the client, and the upstream connection is discarded.
func (s *Server) refuseUnreadStatus(ctx *fasthttp.RequestCtx, x *exchange, resp *fasthttp.Response) {
	status := resp.StatusCode()
	closeStream(resp, errUnreadStatus)
	fasthttp.ReleaseResponse(resp)
	s.log.Warn("upstream status not relayed on a read route", "upstream", x.up.name, "route", x.path, "status", status)
	writeRouteError(ctx, x, fasthttp.StatusBadGateway, "upstream_error", "upstream_unexpected_status",
		fmt.Sprintf("upstream %s answered with status %d, which hookgate does not relay on a route it reads (a client could take it for a success or follow it past hookgate)", x.up.name, status))
}
