package interceptors

import "sync"

// upstreamReadSize is one read from an upstream stream. Events are rarely
// over a few hundred bytes, and a larger one simply takes several reads
// (the SSE parser joins them), so a small buffer costs little per read
// while keeping the memory an idle stream holds small: a read that waits
// for the upstream holds its buffer the whole time.
const upstreamReadSize = 8 << 10

// readBuffers are pooled as *[]byte so that Put does not allocate.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, upstreamReadSize); return &b }}
