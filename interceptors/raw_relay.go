package interceptors

import (
	"context"
	"errors"
	"io"
)

// relayRaw moves an upstream body to the client as it comes, a read at a
// time, for a stream no hook reads: hookgate is a plain reverse proxy
// there. It stops at the body's end, a failed read, the client's leaving,
// ctx, or past maxStream bytes (0: no bound).
func relayRaw(ctx context.Context, upstream io.Reader, client Sink, maxStream int64) error {
	bp := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(bp)
	buf := *bp
	var relayed int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := upstream.Read(buf)
		if n > 0 {
			relayed += int64(n)
			if maxStream > 0 && relayed > maxStream {
				return errStreamTooLarge
			}
			if _, err := client.Write(buf[:n]); err != nil {
				return err
			}
			if err := client.Flush(); err != nil {
				return err
			}
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return nil
			}
			return rerr
		}
	}
}
