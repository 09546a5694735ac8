package interceptors

import (
	"context"
	"errors"
	"io"
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
