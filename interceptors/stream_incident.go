package interceptors

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hookgate/hookgate/hooks"
)

// TruncationRecorder is implemented by exchanges that write an upstream
// stream's truncation to the audit. The proxy calls it when RelayStream
// returned an error wrapping ErrTruncated.
type TruncationRecorder interface {
	RecordTruncation(cause error)
}

// RecordTruncation records, as a stop event of the session under
// hookgate's own id (hooks.IncidentHookID), that the upstream stream ended
// before it finished: the client got what was relayed and an error event,
// and nothing still held (a partial or unjudged tool call) went out.
func (x *exchangeState) RecordTruncation(cause error) {
	if x.engine == nil || x.id == nil {
		return
	}
	ev := x.id.event(hooks.Stop, "stream_truncated", strconv.FormatInt(time.Now().UnixNano(), 36))
	x.engine.RecordIncident(ev, "the upstream stream ended before it finished; held tool calls were not emitted", fmt.Errorf("stream truncated: %w", cause))
}
