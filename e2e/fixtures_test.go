package e2e

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
	"github.com/hookgate/hookgate/internal/mockupstream"
)

// chunkings are the ways the mock cuts a recorded stream into writes: the
// recordings lost their original TCP boundaries, so the proxy must give
// the same result for any of them.
var chunkings = []mockupstream.Chunking{
	{Mode: mockupstream.PerEvent},
	{Mode: mockupstream.FixedSize, Size: 1},
	{Mode: mockupstream.Random, Size: 97, Seed: 7},
}

// sameAs compares what a client assembled directly from the mock with what
// it assembled through hookgate. Error texts may name the base URL, which
// differs between the two, so it is masked.
func sameAs(t *testing.T, what string, direct, proxied assembled, directBase, proxyBase string) {
	t.Helper()
	direct.Err = strings.ReplaceAll(direct.Err, directBase, "BASE")
	proxied.Err = strings.ReplaceAll(proxied.Err, proxyBase, "BASE")
	if !reflect.DeepEqual(direct, proxied) {
		t.Errorf("%s: through hookgate the client assembled something else\ndirect:  %s\nproxied: %s", what, direct, proxied)
	}
}

// TestRecordedStreamsPassThroughUnchanged replays every recorded chat
// completions stream through hookgate with no hook configured: the bytes the
// client receives equal the upstream's, and go-openai and openai-go assemble
// exactly what they assemble when calling the mock directly. The one
// recording hookgate refuses (refusedRecordings) gets the route's error
// event instead.
func TestRecordedStreamsPassThroughUnchanged(t *testing.T) {
	s := startStack(t, "")
	streams := fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindSSE)
	if len(streams) < 20 {
		t.Fatalf("found only %d chat completions streams among the fixtures", len(streams))
	}
	for _, f := range streams {
		body := f.Read(t)
		t.Run(f.Rel, func(t *testing.T) {
			if refusedRecordings[f.Rel] != "" {
				expectRefusedRecording(t, s, body)
				return
			}
			for _, c := range chunkings {
				s.mock.Handle(mockupstream.Always(mockupstream.Stream(body, c)))
				status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","stream":true,"messages":[]}`), nil)
				if status != 200 {
					t.Fatalf("%s: status %d: %s", c.Mode, status, got)
				}
				if !bytes.Equal(got, body) {
					t.Fatalf("%s: relayed bytes differ from the upstream's (%d vs %d bytes)\n%s", c.Mode, len(got), len(body), firstDiff(got, body))
				}
			}
			s.mock.Handle(mockupstream.Always(mockupstream.Stream(body, chunkings[0])))
			goDirect, ogDirect := goOpenAIStream(t, s.mock.URL()), openaiGoStream(t, s.mock.URL())
			if goDirect.empty() && ogDirect.empty() {
				t.Fatalf("neither SDK read anything from the mock directly; the comparison would prove nothing")
			}
			sameAs(t, "go-openai", goDirect, goOpenAIStream(t, s.app.URL()), s.mock.URL(), s.app.URL())
			sameAs(t, "openai-go", ogDirect, openaiGoStream(t, s.app.URL()), s.mock.URL(), s.app.URL())
		})
	}
}

// TestRecordedResponsesPassThroughUnchanged does the same for every
// recorded non-streamed chat completion.
func TestRecordedResponsesPassThroughUnchanged(t *testing.T) {
	s := startStack(t, "")
	plain := fixtures.List(t, fixtures.APIChatCompletions, fixtures.KindJSON)
	if len(plain) < 8 {
		t.Fatalf("found only %d chat completions responses among the fixtures", len(plain))
	}
	for _, f := range plain {
		body := f.Read(t)
		t.Run(f.Rel, func(t *testing.T) {
			s.mock.Handle(mockupstream.Always(mockupstream.JSON(200, body)))
			status, _, got := rawPost(t, s.app.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[]}`), nil)
			if status != 200 || !bytes.Equal(got, body) {
				t.Fatalf("status %d, body differs from the upstream's:\n%s", status, firstDiff(got, body))
			}
			goDirect := goOpenAIPlain(t, s.mock.URL())
			if goDirect.empty() || goDirect.Err != "" {
				t.Fatalf("go-openai could not read the recorded response directly: %s", goDirect)
			}
			sameAs(t, "go-openai", goDirect, goOpenAIPlain(t, s.app.URL()), s.mock.URL(), s.app.URL())
			sameAs(t, "openai-go", openaiGoPlain(t, s.mock.URL()), openaiGoPlain(t, s.app.URL()), s.mock.URL(), s.app.URL())
		})
	}
}

// firstDiff shows where two byte strings part.
func firstDiff(a, b []byte) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	lo := max(0, i-40)
	return fmt.Sprintf("first difference at byte %d:\n got: %q\nwant: %q", i, a[lo:min(len(a), i+40)], b[lo:min(len(b), i+40)])
}
