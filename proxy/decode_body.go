package proxy

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// maxContentCodings bounds how many codings one response may stack
// ("gzip, br"); real servers use one.
const maxContentCodings = 2

// zstdMaxWindow is the largest zstd window hookgate decodes: 8 MiB, what
// HTTP's zstd coding allows (RFC 9659) and what browsers support. A frame
// that asks for more is refused rather than given the memory.
const zstdMaxWindow = 8 << 20

// errUnsupportedEncoding marks a Content-Encoding hookgate does not read;
// the caller answers 502 in the route's shape rather than hand the body to
// a reader that would misread it.
var errUnsupportedEncoding = errors.New("unsupported content-encoding")

// decodeBody undoes the Content-Encoding an upstream used although
// hookgate asked for identity. It reports whether it decoded anything.
// Codings are undone in the reverse of the order listed (the last applied
// comes off first); an unknown coding, or more than maxContentCodings,
// is an error before a byte is read. Decoders start on the first Read and
// stream: none reads ahead of what its reader asks for beyond its own
// window, so the caller's caps (limits.max_response_bytes,
// limits.max_stream_bytes) on the decoded bytes bound a decompression bomb.
func decodeBody(r io.Reader, encoding []byte) (io.Reader, bool, error) {
	codings, err := contentCodings(encoding)
	if err != nil || len(codings) == 0 {
		return r, false, err
	}
	for i := len(codings) - 1; i >= 0; i-- {
		r = &lazyDecoder{src: r, coding: codings[i]}
	}
	return r, true, nil
}

// contentCodings parses a Content-Encoding value into its codings,
// lower-cased, without identity.
func contentCodings(v []byte) ([]string, error) {
	var out []string
	for tok := range bytes.SplitSeq(v, []byte(",")) {
		c := strings.ToLower(string(bytes.TrimSpace(tok)))
		switch c {
		case "", "identity":
			continue
		case "gzip", "x-gzip", "deflate", "br", "zstd":
		default:
			return nil, fmt.Errorf("%w: upstream used content-encoding %q, which hookgate cannot read", errUnsupportedEncoding, bytes.TrimSpace(v))
		}
		out = append(out, c)
	}
	if len(out) > maxContentCodings {
		return nil, fmt.Errorf("%w: upstream stacked %d content-codings (%q); hookgate reads at most %d", errUnsupportedEncoding, len(out), bytes.TrimSpace(v), maxContentCodings)
	}
	return out, nil
}

// lazyDecoder opens its decoder on the first Read, so that answering the
// response's headers never waits for body bytes, and a malformed coding
// shows as a read error of the body.
type lazyDecoder struct {
	src    io.Reader
	coding string
	r      io.Reader
	err    error
}

func (d *lazyDecoder) Read(p []byte) (int, error) {
	if d.r == nil && d.err == nil {
		d.r, d.err = openDecoder(d.src, d.coding)
	}
	if d.err != nil {
		return 0, d.err
	}
	return d.r.Read(p)
}

func openDecoder(src io.Reader, coding string) (io.Reader, error) {
	switch coding {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, fmt.Errorf("upstream gzip body: %w", err)
		}
		return zr, nil
	case "deflate":
		return openDeflate(src)
	case "br":
		return brotli.NewReader(src), nil
	case "zstd":
		zr, err := zstd.NewReader(src,
			// One decoder, decoding as it is read: no goroutines ahead of
			// the reader, no buffered blocks beyond the window.
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(zstdMaxWindow),
			zstd.WithDecoderMaxMemory(zstdMaxWindow*2),
		)
		if err != nil {
			return nil, fmt.Errorf("upstream zstd body: %w", err)
		}
		return &zstdBody{d: zr}, nil
	}
	return nil, fmt.Errorf("%w: %q", errUnsupportedEncoding, coding)
}

// openDeflate reads "deflate" as RFC 9110 defines it, a zlib stream, and
// tolerates the raw deflate some servers send under that name: a zlib
// stream begins with a header whose compression method is 8 and whose
// two bytes, read as a big-endian number, are a multiple of 31.
func openDeflate(src io.Reader) (io.Reader, error) {
	br := bufio.NewReader(src)
	head, err := br.Peek(2)
	if err != nil && len(head) < 2 {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("upstream deflate body: %w", err)
	}
	if head[0]&0x0f == 8 && head[0]>>4 <= 7 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		zr, err := zlib.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("upstream deflate (zlib) body: %w", err)
		}
		return zr, nil
	}
	return flate.NewReader(br), nil
}

// zstdBody releases its decoder once the body ends or fails, and keeps
// answering with how it ended.
type zstdBody struct {
	d   *zstd.Decoder
	err error
}

func (z *zstdBody) Read(p []byte) (int, error) {
	if z.d == nil {
		return 0, z.err
	}
	n, err := z.d.Read(p)
	if err != nil {
		z.d.Close()
		z.d, z.err = nil, err
		if n > 0 {
			err = nil
		}
	}
	return n, err
}
