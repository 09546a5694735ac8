// Package testenv tells tests where the services they need run
// (PostgreSQL, Redis), as scripts/services.sh started them. A test that
// needs a missing service is skipped with the reason on a developer's
// machine, and fails under the test command, which sets
// HOOKGATE_REQUIRE_SERVICES=1: there, a service that did not start must
// never turn into silently skipped tests.
//
// It also starts Redis deployments a test needs of its own (a Sentinel,
// a Cluster, a TLS-only server) from redis-server: see redis_topology.go.
package testenv

import (
	"os"
	"testing"
)

// Names of the variables scripts/services.sh prints.
const (
	PostgresEnv = "HOOKGATE_PG_DSN"
	RedisEnv    = "HOOKGATE_REDIS_ADDR"
	requireEnv  = "HOOKGATE_REQUIRE_SERVICES"
)

// Postgres returns the DSN of the test PostgreSQL, or skips t (fails it
// when services are required).
func Postgres(t testing.TB) string {
	t.Helper()
	return service(t, PostgresEnv, "PostgreSQL")
}

// Redis returns the address of the test Redis, or skips t (fails it when
// services are required).
func Redis(t testing.TB) string {
	t.Helper()
	return service(t, RedisEnv, "Redis")
}

// Required reports whether a missing service fails a test instead of
// skipping it.
func Required() bool { return os.Getenv(requireEnv) == "1" }

func service(t testing.TB, env, name string) string {
	t.Helper()
	v := os.Getenv(env)
	if v != "" {
		return v
	}
	if Required() {
		t.Fatalf("%s is required (%s=1) but %s is not set: scripts/services.sh did not start it", name, requireEnv, env)
	}
	t.Skipf("SKIPPED: %s is not set, so this %s test does not run; `eval \"$(scripts/services.sh)\"` starts %s", env, name, name)
	return ""
}
