package proxy

import (
	"errors"
	"reflect"
	"testing"
)

func TestMediaTypeIs(t *testing.T) {
	for _, c := range []struct {
		ct   string
		want bool
	}{
		{"text/event-stream", true},
		{"Text/Event-Stream", true},
		{"TEXT/EVENT-STREAM; charset=utf-8", true},
		{" text/event-stream ;charset=UTF-8", true},
		{"\ttext/event-stream", true},
		{"text/event-streams", false},
		{"text/event-stream-x; a=b", false},
		{"application/json", false},
		{"", false},
	} {
		if got := mediaTypeIs([]byte(c.ct), "text/event-stream"); got != c.want {
			t.Errorf("mediaTypeIs(%q) = %v, want %v", c.ct, got, c.want)
		}
	}
}

func TestContentCodings(t *testing.T) {
	for _, c := range []struct {
		v    string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"identity", nil, false},
		{"GZIP", []string{"gzip"}, false},
		{"gzip, br", []string{"gzip", "br"}, false},
		{" zstd ,identity", []string{"zstd"}, false},
		{"x-gzip", []string{"x-gzip"}, false},
		{"compress", nil, true},
		{"gzip, br, zstd", nil, true},
		{"gzip;q=1", nil, true},
	} {
		got, err := contentCodings([]byte(c.v))
		if (err != nil) != c.err || !reflect.DeepEqual(got, c.want) {
			t.Errorf("contentCodings(%q) = %q, %v", c.v, got, err)
		}
		if err != nil && !errors.Is(err, errUnsupportedEncoding) {
			t.Errorf("contentCodings(%q): %v is not errUnsupportedEncoding", c.v, err)
		}
	}
}

func TestWithoutCredentialParams(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"alt=sse", "alt=sse"},
		{"key=a", ""},
		{"a=1&key=b&c=3", "a=1&c=3"},
		{"Key=a&kEy=b&KEY=c", ""},
		{"%6b%65%79=a&x=1", "x=1"},
		{"key+=a&x=1", "x=1"},
		{"x=1;key=a&y=2", "y=2"},
		{"%zz=1&x=2", "x=2"},
		{"keys=1&skey=2&key_id=3", "keys=1&skey=2&key_id=3"},
		{"a=key&b=%6Bey", "a=key&b=%6Bey"},
	} {
		got, _ := withoutCredentialParams([]byte(c.q))
		if string(got) != c.want {
			t.Errorf("withoutCredentialParams(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}
