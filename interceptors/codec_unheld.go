package interceptors

import (
	"context"
)

// relayUnheld is hold for a frame of whole calls behind dry-run hooks only
// (unheld_calls.go): the frame takes its place in the queue judged, so it
// goes out as it came once the frames before it have, and each call is
// dispatched to the dry runs on the side.
func (s *codecStream) relayUnheld(ctx context.Context, fr *codecFrame) error {
	fr.unheld = true
	for i := range fr.f.Calls {
		c := &fr.f.Calls[i]
		s.x.observeUnheld(ctx, s.x.callEvent(c), c.Args, s.x.c.loop.clock)
	}
	return s.flush(ctx)
}
