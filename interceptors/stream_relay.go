package interceptors

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hookgate/hookgate/providers"
)

// streamRelay moves an upstream event stream to the client event by event.
// Frames nobody needs to touch are written as the lines the relay parser
// passes on, as they came; a frame handler may replace them. It notices the terminal marker, so that a
// stream that merely stops is reported as truncated rather than passed
// off as a clean finish.
type streamRelay struct {
	parser    *providers.SSEParser
	maxStream int64
	ends      func(*providers.SSEFrame) bool
	relayed   int64
	complete  bool
	// errorEvent encodes the in-band error that ends a failed stream in
	// the route's wire format; nil writes the OpenAI shape.
	errorEvent func(code, message string) []byte
}

// frameHandler may take over a frame: it returns true when it has written
// (or deliberately held) the frame itself.
type frameHandler func(f *providers.SSEFrame, client Sink) (handled bool, err error)

func newStreamRelay(maxEvent int, maxStream int64, ends func(*providers.SSEFrame) bool) *streamRelay {
	return &streamRelay{parser: providers.NewRelaySSEParser(maxEvent), maxStream: maxStream, ends: ends}
}

// run relays until the stream ends, the client leaves or ctx is done.
func (r *streamRelay) run(ctx context.Context, upstream io.Reader, client Sink, handle frameHandler) error {
	bp := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(bp)
	buf := *bp
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := upstream.Read(buf)
		if n > 0 {
			r.relayed += int64(n)
			if r.maxStream > 0 && r.relayed > r.maxStream {
				return r.fail(client, "stream_too_large", fmt.Sprintf("the upstream stream exceeded hookgate's limit of %d bytes (limits.max_stream_bytes)", r.maxStream), errStreamTooLarge)
			}
			r.parser.Feed(buf[:n])
			if err := r.drain(client, handle); err != nil {
				return err
			}
			if err := client.Flush(); err != nil {
				return err
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				return r.fail(client, "stream_truncated", "the upstream connection failed before the stream finished", fmt.Errorf("%w: %v", ErrTruncated, rerr))
			}
			return r.finish(client, handle)
		}
	}
}

var errStreamTooLarge = errors.New("stream exceeds limits.max_stream_bytes")

// drain writes every complete frame buffered in the parser.
func (r *streamRelay) drain(client Sink, handle frameHandler) error {
	for {
		f, err := r.parser.Next()
		if err != nil {
			code, message := parserFailure(err)
			return r.fail(client, code, message, err)
		}
		if f == nil {
			return nil
		}
		if r.ends(f) {
			r.complete = true
		}
		if handle != nil {
			handled, err := handle(f, client)
			if err != nil {
				return err
			}
			if handled {
				continue
			}
		}
		if _, err := client.Write(f.Raw); err != nil {
			return err
		}
	}
}

// finish handles the end of the upstream body: the last frames, then a
// truncation error when the stream never reached its terminal marker or
// stops inside an event (even one after the terminal marker: an event is
// whole only at its blank line). The unfinished event is not passed on:
// glued to the error event, it would turn both into one malformed event
// and hide the error from the client.
func (r *streamRelay) finish(client Sink, handle frameHandler) error {
	r.parser.End()
	if err := r.drain(client, handle); err != nil {
		return err
	}
	if !r.complete {
		return r.fail(client, "stream_truncated", "the upstream stream ended before it finished", ErrTruncated)
	}
	if len(r.parser.Trailing()) > 0 {
		return r.fail(client, "stream_truncated", unfinishedEvent, ErrTruncated)
	}
	return client.Flush()
}

// fail tells the client, in-band, why the stream stops, and returns cause.
func (r *streamRelay) fail(client Sink, code, message string, cause error) error {
	var ev []byte
	if r.errorEvent != nil {
		ev = r.errorEvent(code, message)
	} else {
		ev = providers.FrameSSEData(openAIError("upstream_error", code, message))
	}
	if _, err := client.Write(ev); err != nil {
		return err
	}
	if err := client.Flush(); err != nil {
		return err
	}
	return cause
}
