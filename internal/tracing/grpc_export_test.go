package tracing

import (
	"context"
	"net"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// grpcReceiver is a collector's OTLP/gRPC trace service on loopback.
type grpcReceiver struct {
	coltrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	names []string
	token []string
}

func (r *grpcReceiver) Export(ctx context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.token = md.Get("x-collector-token")
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.names = append(r.names, s.Name)
			}
		}
	}
	return &coltrace.ExportTraceServiceResponse{}, nil
}

func TestGRPCExportReachesALoopbackCollector(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	rcv := &grpcReceiver{}
	coltrace.RegisterTraceServiceServer(srv, rcv)
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()

	p, err := New(context.Background(), Options{
		Endpoint: ln.Addr().String(), Protocol: "grpc", Insecure: true, SampleRatio: 1,
		Headers: map[string]string{"X-Collector-Token": "t-1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, sp := p.Tracer().Start(context.Background(), "exported over grpc")
	sp.End()
	// Shutdown exports what is queued, so the receiver has it on return.
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.names) != 1 || rcv.names[0] != "exported over grpc" {
		t.Fatalf("the collector got %q", rcv.names)
	}
	if len(rcv.token) != 1 || rcv.token[0] != "t-1" {
		t.Fatalf("the export's token header %q, want t-1", rcv.token)
	}
}
