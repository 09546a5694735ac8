package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresSchema returns the test PostgreSQL's DSN on a schema of its
// own, created now and dropped when t ends, and that schema's name. The
// DSN's application_name is the schema's name too, so that a test finds
// its own connections in pg_stat_activity (hookgate appends a role to it:
// "<schema> notify", "<schema> lead"). It skips t as Postgres does.
func PostgresSchema(t testing.TB) (dsn, schema string) {
	t.Helper()
	base := Postgres(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("PostgreSQL from %s: %v", PostgresEnv, err)
	}
	defer func() { _ = conn.Close(ctx) }()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema = "hgtest_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		_, _ = c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	return withParams(base, "search_path", schema, "application_name", schema), schema
}

// TerminateBackends ends the test PostgreSQL's connections whose
// application_name is name (pg_terminate_backend) and returns how many
// it ended.
func TerminateBackends(t testing.TB, name string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, Postgres(t))
	if err != nil {
		t.Fatalf("PostgreSQL from %s: %v", PostgresEnv, err)
	}
	defer func() { _ = conn.Close(ctx) }()
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) x`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// withParams adds key/value pairs to a URL or keyword/value DSN.
func withParams(dsn string, kv ...string) string {
	for i := 0; i+1 < len(kv); i += 2 {
		if strings.Contains(dsn, "://") {
			sep := "?"
			if strings.Contains(dsn, "?") {
				sep = "&"
			}
			dsn += sep + kv[i] + "=" + kv[i+1]
		} else {
			dsn += " " + kv[i] + "=" + kv[i+1]
		}
	}
	return dsn
}
