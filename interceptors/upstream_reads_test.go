package interceptors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingUpstream serves pieces one per Read, counting the Reads, then
// ends with end.
type countingUpstream struct {
	pieces []string
	end    error
	reads  atomic.Int32
}

func (u *countingUpstream) Read(p []byte) (int, error) {
	i := int(u.reads.Add(1)) - 1
	if i >= len(u.pieces) {
		return 0, u.end
	}
	return copy(p, u.pieces[i]), nil
}

// The first read is made before startUpstreamReads returns, and its result
// waits on c for the loop; nothing more is read until its buffer comes
// back. Then the reader goroutine reads the rest, in order, to the end.
func TestUpstreamReadsFirstReadIsInline(t *testing.T) {
	up := &countingUpstream{pieces: []string{"data: one\n\n", "data: two\n\n", "data: [DONE]\n\n"}, end: io.EOF}
	reads := startUpstreamReads(context.Background(), up)
	if got := up.reads.Load(); got != 1 {
		t.Fatalf("%d reads when startUpstreamReads returned, want the first one only", got)
	}
	select {
	case r := <-reads.c:
		if got := string((*r.buf)[:r.n]); got != "data: one\n\n" || r.err != nil {
			t.Fatalf("first result %q, %v", got, r.err)
		}
		time.Sleep(20 * time.Millisecond)
		if got := up.reads.Load(); got != 1 {
			t.Fatalf("%d reads before the first buffer came back", got)
		}
		reads.reuse(r.buf)
	default:
		t.Fatal("the first read's result is not waiting on c")
	}
	var got []string
	for {
		select {
		case r := <-reads.c:
			got = append(got, string((*r.buf)[:r.n]))
			reads.reuse(r.buf)
			if r.err == nil {
				continue
			}
			if !errors.Is(r.err, io.EOF) || len(got) != 3 || got[0] != "data: two\n\n" || got[1] != "data: [DONE]\n\n" || got[2] != "" {
				t.Fatalf("after the first read: %q, ending with %v", got, r.err)
			}
			return
		case <-time.After(5 * time.Second):
			t.Fatalf("the reader goroutine delivered only %q", got)
		}
	}
}

// A first read that ends the body starts no reader: nothing is read after
// it, even once its buffer is back.
func TestUpstreamReadsFirstReadEndingTheBodyStartsNoReader(t *testing.T) {
	up := &countingUpstream{end: errors.New("connection reset")}
	reads := startUpstreamReads(context.Background(), up)
	r := <-reads.c
	if r.err == nil || r.n != 0 {
		t.Fatalf("first result %d bytes, %v; want the read error", r.n, r.err)
	}
	reads.reuse(r.buf)
	time.Sleep(20 * time.Millisecond)
	if got := up.reads.Load(); got != 1 {
		t.Fatalf("%d reads after a failed first read, want 1", got)
	}
}

// With ctx already done nothing is read at all: the loop sees ctx.
func TestUpstreamReadsDoneContextReadsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	up := &countingUpstream{pieces: []string{"data: one\n\n"}, end: io.EOF}
	reads := startUpstreamReads(ctx, up)
	if got := up.reads.Load(); got != 0 {
		t.Fatalf("%d reads with ctx done", got)
	}
	select {
	case r := <-reads.c:
		t.Fatalf("a result with ctx done: %+v", r)
	default:
	}
}

// Streams that share the pooled read buffers each get their own bytes,
// whether they read to the end or are cancelled part way with a read
// still blocked: a buffer goes back to the pool only once no stream can
// still read or fill it (under -race, a buffer in two streams at once is a
// reported race as well as a wrong byte here).
func TestUpstreamReadsPooledBuffersAreNeverShared(t *testing.T) {
	const streams, pieces = 24, 40
	done := make(chan error, streams)
	for s := range streams {
		go func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			up := &blockingUpstream{stream: s, pieces: pieces, release: make(chan struct{})}
			defer close(up.release)
			reads := startUpstreamReads(ctx, up)
			stopAt := pieces + 1 // read to the end
			if s%3 == 0 {
				stopAt = s % pieces // cancel with the next read blocked
			}
			for i := 0; ; i++ {
				if i == stopAt {
					cancel()
					done <- nil
					return
				}
				r := <-reads.c
				if r.err != nil {
					if !errors.Is(r.err, io.EOF) || i != pieces {
						done <- fmt.Errorf("stream %d: ended at read %d with %v", s, i, r.err)
					} else {
						done <- nil
					}
					reads.reuse(r.buf)
					return
				}
				want := up.piece(i)
				got := string((*r.buf)[:r.n])
				// Another stream filling this buffer shows as other bytes
				// by the time the loop has looked.
				runtime.Gosched()
				if again := string((*r.buf)[:r.n]); got != want || again != want {
					done <- fmt.Errorf("stream %d read %d: %q then %q, want %q", s, i, got, again, want)
					reads.reuse(r.buf)
					return
				}
				reads.reuse(r.buf)
			}
		}()
	}
	for range streams {
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a stream never finished")
		}
	}
}

// blockingUpstream serves pieces numbered for its stream, then EOF; a
// read past stopAt-style cancellation blocks until release is closed, as
// an upstream body does until the proxy closes it.
type blockingUpstream struct {
	stream, pieces int
	next           int
	release        chan struct{}
}

func (u *blockingUpstream) piece(i int) string {
	return fmt.Sprintf("data: stream %d piece %d %s\n\n", u.stream, i, strings.Repeat("x", (u.stream*7+i)%300))
}

func (u *blockingUpstream) Read(p []byte) (int, error) {
	if u.next >= u.pieces {
		return 0, io.EOF
	}
	if u.stream%3 == 0 && u.next == u.stream%u.pieces+1 {
		<-u.release // the loop has cancelled; the body's close releases this
		return 0, errors.New("body closed")
	}
	n := copy(p, u.piece(u.next))
	u.next++
	return n, nil
}
