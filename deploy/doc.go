// Package deploy checks hookgate's packaging: the static binary the
// Dockerfile builds (scripts/build-static.sh), the Helm chart under
// helm/hookgate, the plain manifests under kubernetes/ and the systemd unit
// under systemd/, and the traces the binary exports, received by the
// OpenTelemetry Collector's OTLP receiver. It is a module of its own so
// that Helm, the Kubernetes types, prometheus-operator's and the
// Collector's never reach the hookgate binary's dependencies; it holds no
// code the binary runs, only these tests.
//
// The tests render the chart with Helm's Go library, decode every manifest
// strictly into the k8s.io/api types (an unknown or misplaced field fails),
// check what running hookgate in a cluster depends on (probes, ports,
// security context, drain arithmetic, the configuration mounted as a
// directory), and run the built binary's `validate` on every configuration
// they ship or render. collector_test.go runs the built binary with
// tracing on, in front of a loopback upstream replaying a recorded stream,
// against the Collector's otlpreceiver started in this process (HTTP and
// gRPC), and judges the trace the receiver accepted.
package deploy
