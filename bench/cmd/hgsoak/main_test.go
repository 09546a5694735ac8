package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookgate/hookgate/bench"
)

// The soak in miniature, through the command: 20 streams for 2 s through
// a real hookgate with the script hook; every answer of the load checks
// out, the hook decided each of its calls, the goroutines come back, and
// the JSON says so. The warm-up is not judged: on a loaded machine it may
// be slow while pools fill.
func TestSoakInMiniature(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hookgate under load for a few seconds")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-streams", "20", "-duration", "2s", "-chunk-interval", "10ms", "-out", dir}, &stdout, &stderr)
	t.Logf("%s\n%s", stdout.String(), stderr.String())
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-hgsoak.json"))
	if len(files) != 1 {
		t.Fatalf("want one results file, got %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.SoakReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	switch {
	case !rep.Pass || rep.Errors != 0:
		t.Fatalf("pass %v, %d errors (%d in the warm-up, not judged): %v", rep.Pass, rep.Errors, rep.WarmupErrors, rep.Failures)
	case rep.Streams < 20:
		t.Fatalf("only %d streams completed", rep.Streams)
	case rep.HeldCallsPeak < 1:
		t.Fatalf("no held call seen (peak %v)", rep.HeldCallsPeak)
	case rep.Memory.PeakRSS == 0 || rep.Memory.HeapBefore == 0 || rep.StreamDuration.P99 == 0:
		t.Fatalf("figures missing: %+v, durations %+v", rep.Memory, rep.StreamDuration)
	}
}
