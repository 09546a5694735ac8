package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/bench/hgtarget"
)

// The test binary is also the hookgate child process that StartProcess
// re-executes.
func TestMain(m *testing.M) {
	hgtarget.ServeIfChild()
	os.Exit(m.Run())
}

// The exhaustion test in miniature, through the command: 50 dripping, 50
// idle and 5 fake-body connections against a hookgate process with 2 s
// timeouts. It checks that the report accounts for every connection and
// measured what it says, not that hookgate met the targets; but the
// command's error must agree with the report's verdict, since the full
// run's exit status is what says whether they were met.
func TestExhaustInMiniature(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hookgate under attack for about 10 seconds")
	}
	dir := t.TempDir()
	var stdout bytes.Buffer
	var stderr syncBuffer
	err := run(context.Background(), []string{
		"-drippers", "50", "-idlers", "50", "-bodies", "5",
		"-client-header", "2s", "-client-idle", "2s", "-client-body-progress", "2s",
		"-unloaded", "1s", "-out", dir,
	}, &stdout, &stderr)
	t.Logf("%s\n%s", stdout.String(), stderr.String())
	if err != nil && !errors.Is(err, bench.ErrExhaustFailed) {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-hgexhaust.json"))
	if len(files) != 1 {
		t.Fatalf("want one results file, got %v", files)
	}
	b, err2 := os.ReadFile(files[0])
	if err2 != nil {
		t.Fatal(err2)
	}
	var rep bench.ExhaustReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Pass != (err == nil) || rep.Pass != (len(rep.Failures) == 0) {
		t.Fatalf("pass %v with failures %q, but the command returned %v", rep.Pass, rep.Failures, err)
	}
	want := map[string]int{bench.KindHeaderDrip: 50, bench.KindIdle: 50, bench.KindFakeBody: 5}
	if len(rep.Connections) != len(want) {
		t.Fatalf("connections reported: %+v", rep.Connections)
	}
	for _, c := range rep.Connections {
		switch {
		case c.Wanted != want[c.Kind] || c.SetUp != c.Wanted:
			t.Errorf("%s: wanted %d, set up %d (want %d): %v", c.Kind, c.Wanted, c.SetUp, want[c.Kind], c.SetupErrors)
		case c.ClosedInTime+c.ClosedLate+c.OpenAtEnd != c.SetUp || len(c.CloseMS) != c.SetUp:
			t.Errorf("%s: %d in time + %d late + %d open != %d set up (%d close times)", c.Kind, c.ClosedInTime, c.ClosedLate, c.OpenAtEnd, c.SetUp, len(c.CloseMS))
		case c.CloseAfter.N != c.ClosedInTime+c.ClosedLate:
			t.Errorf("%s: close times of %d connections, %d closed", c.Kind, c.CloseAfter.N, c.ClosedInTime+c.ClosedLate)
		}
	}
	m := rep.Memory
	if m.RSSBaseline == 0 || m.PeakRSS < m.RSSBaseline || m.RSSSampledPeak == 0 || len(rep.Samples) == 0 {
		t.Errorf("hookgate's memory not measured: %+v, %d samples", m, len(rep.Samples))
	}
	if rep.Files.Before <= 0 || rep.Files.Peak < rep.Files.Before {
		t.Errorf("hookgate's files not measured: %+v", rep.Files)
	}
	// Only the idle connections' requests must have reached hookgate;
	// a descriptor per connection shows that they were held there.
	if rep.Files.Peak < rep.Files.Before+50 && rep.Connections[1].ClosedInTime == 0 {
		t.Errorf("hookgate's descriptors peaked at %d from %d with 50 idle connections open", rep.Files.Peak, rep.Files.Before)
	}
	for _, ph := range []bench.Phase{rep.Unloaded, rep.Loaded} {
		if ph.Rounds == 0 || len(ph.Targets) != 2 || ph.Targets[0].Requests == 0 || ph.Targets[1].Requests == 0 {
			t.Errorf("ordinary phase not measured: %+v", ph)
		}
	}
	if rep.HookgatePID == os.Getpid() || rep.HookgatePID == 0 {
		t.Errorf("hookgate's pid %d is not a child's (this is %d)", rep.HookgatePID, os.Getpid())
	}
}

// syncBuffer is a bytes.Buffer that os/exec's copier of the hookgate
// child's stderr and the command's progress lines may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
