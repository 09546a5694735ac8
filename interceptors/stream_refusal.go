package interceptors

import (
	"errors"

	"github.com/hookgate/hookgate/providers"
)

// parserFailure names, for the client, why the SSE relay parser stopped a
// stream: an event past limits.max_event_bytes, or a line form that
// clients read in different ways (providers.SSELineFormError), which
// hookgate refuses rather than relay something a client may read
// otherwise than the hooks judged it.
func parserFailure(err error) (code, message string) {
	var form *providers.SSELineFormError
	if errors.As(err, &form) {
		return "ambiguous_stream", "hookgate refused the upstream stream: " + form.Form
	}
	return "event_too_large", "an upstream event exceeded hookgate's limit (limits.max_event_bytes)"
}
