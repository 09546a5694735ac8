package interceptors

import "bytes"

// cloneFrame copies a frame the machine holds: raw, and payload within
// the same copy when it lies inside raw (an SSE event's data line), so a
// held frame costs one copy, not two.
func cloneFrame(raw, payload []byte) (r, p []byte) {
	r = clone(raw)
	if len(payload) > 0 {
		if i := bytes.LastIndex(raw, payload); i >= 0 && &raw[i] == &payload[0] {
			return r, r[i : i+len(payload) : i+len(payload)]
		}
	}
	return r, clone(payload)
}
