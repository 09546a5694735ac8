package bench

import (
	"context"
	"testing"
	"time"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// BenchmarkAddedLatency measures what the bare hop adds over direct: b.N
// rounds of interleaved requests at concurrency 1 (ns/op is one round, a
// request to each target), reported with ReportMetric in microseconds:
//
//	go test -run '^$' -bench . -benchmem ./bench/
//
// The stream's events come every millisecond (the OS timer's resolution on
// this kind of VM; hgbench uses 5 ms), so a stream round takes about 50 ms:
// use -benchtime 300x or more for a steady p99. Events written back to back
// would not do: the mock's burst of writes then competes with the hop for
// the two cores and inflates the hop's time to first byte several times.
func BenchmarkAddedLatency(b *testing.B) {
	for _, sc := range []Scenario{
		Plain(Options{}),
		Stream(Options{ChunkInterval: time.Millisecond}),
	} {
		b.Run(sc.Name, func(b *testing.B) {
			mock, err := mockupstream.New(mockupstream.Options{NoRecord: true})
			if err != nil {
				b.Fatal(err)
			}
			defer mock.Close()
			mock.Handle(mockupstream.Always(sc.Response))
			r, err := startRig(&sc, []Target{Direct(), BareHop()}, mock.URL(), 30*time.Second, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer r.close()
			closedLoop(context.Background(), r.clients, 1, 20, time.Minute) // warm-up
			b.ReportAllocs()
			b.ResetTimer()
			res, elapsed := closedLoop(context.Background(), r.clients, 1, b.N, time.Hour)
			b.StopTimer()

			p := summarise(&sc, Load{Concurrency: 1}, r.targets, res, elapsed)
			base, hop := p.Targets[0], p.Targets[1]
			if base.Errors+hop.Errors > 0 {
				b.Fatalf("errors: %v %v", base.ErrorSamples, hop.ErrorSamples)
			}
			name, a := p.headline(&hop)
			if a == nil {
				b.Fatalf("no %s measured", name)
			}
			d := base.Latency
			if p.Streamed {
				d = base.TTFB
			}
			b.ReportMetric(d.P50, "direct-"+name+"-p50-us")
			b.ReportMetric(a.P50, "added-"+name+"-p50-us")
			b.ReportMetric(a.P99, "added-"+name+"-p99-us")
			b.ReportMetric(a.PairedMedian, "added-"+name+"-paired-us")
			if p.Streamed && hop.AddedTTFC != nil {
				b.ReportMetric(hop.AddedTTFC.P50, "added-ttfc-p50-us")
			}
		})
	}
}
