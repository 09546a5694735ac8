package mockupstream

import (
	"bytes"
	"reflect"
	"testing"
)

func TestChunks(t *testing.T) {
	tests := []struct {
		name string
		body string
		c    Chunking
		want []string
	}{
		{"whole", "data: a\n\ndata: b\n\n", Chunking{}, []string{"data: a\n\ndata: b\n\n"}},
		{"per-event LF", "data: a\n\ndata: b\n\n", Chunking{Mode: PerEvent}, []string{"data: a\n\n", "data: b\n\n"}},
		{"per-event CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", Chunking{Mode: PerEvent}, []string{"data: a\r\n\r\n", "data: b\r\n\r\n"}},
		{"per-event CR", "data: a\r\rdata: b\r\r", Chunking{Mode: PerEvent}, []string{"data: a\r\r", "data: b\r\r"}},
		{"per-event multi-line event and comment", ": ping\n\nevent: x\ndata: 1\ndata: 2\n\n", Chunking{Mode: PerEvent}, []string{": ping\n\n", "event: x\ndata: 1\ndata: 2\n\n"}},
		{"per-event unterminated tail", "data: a\n\ndata: b", Chunking{Mode: PerEvent}, []string{"data: a\n\n", "data: b"}},
		{"per-event leading blank lines", "\n\ndata: a\n\n", Chunking{Mode: PerEvent}, []string{"\n", "\n", "data: a\n\n"}},
		{"per-line", "{\"a\":1}\n{\"b\":2}\r\n{\"c\":3}", Chunking{Mode: PerLine}, []string{"{\"a\":1}\n", "{\"b\":2}\r\n", "{\"c\":3}"}},
		{"fixed 1", "abc", Chunking{Mode: FixedSize, Size: 1}, []string{"a", "b", "c"}},
		{"fixed 0 means 1", "ab", Chunking{Mode: FixedSize}, []string{"a", "b"}},
		{"fixed 4", "abcdefghij", Chunking{Mode: FixedSize, Size: 4}, []string{"abcd", "efgh", "ij"}},
		{"empty", "", Chunking{Mode: PerEvent}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Chunks([]byte(tt.body), tt.c) {
				got = append(got, string(p))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Chunks = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestChunksRandomIsSeededAndComplete(t *testing.T) {
	body := bytes.Repeat([]byte("data: {\"x\":1}\n\n"), 200)
	c := Chunking{Mode: Random, Size: 7, Seed: 42}
	a, b := Chunks(body, c), Chunks(body, c)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different split points")
	}
	if got := bytes.Join(a, nil); !bytes.Equal(got, body) {
		t.Fatal("pieces do not reassemble the body")
	}
	for _, p := range a {
		if len(p) < 1 || len(p) > 7 {
			t.Fatalf("piece of %d bytes, want 1..7", len(p))
		}
	}
	c.Seed = 43
	if reflect.DeepEqual(a, Chunks(body, c)) {
		t.Fatal("different seeds gave the same split points")
	}
}
