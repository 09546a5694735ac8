package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookgate/hookgate/internal/testenv"
)

// pgDSNEnv names the PostgreSQL the tests use; scripts/services.sh starts
// one and prints it.
const pgDSNEnv = "HOOKGATE_PG_DSN"

// target is a database a test runs against. open may be called several
// times: each Store opened is another "instance" on the same database.
type target struct {
	name string
	// fill sets the driver and where the database is.
	fill func(t *testing.T, opts Options) Options
}

func (tg target) open(t *testing.T, opts Options) *Store {
	t.Helper()
	return openTest(t, tg.fill(t, opts))
}

// targets returns SQLite (a file in t.TempDir()) and, when HOOKGATE_PG_DSN
// is set, PostgreSQL (a schema of its own, dropped afterwards).
func targets(t *testing.T) []target {
	t.Helper()
	dir := t.TempDir()
	out := []target{{name: "sqlite", fill: func(t *testing.T, opts Options) Options {
		opts.Driver, opts.Path = SQLite, filepath.Join(dir, "hookgate.db")
		return opts
	}}}
	if os.Getenv(pgDSNEnv) == "" && !testenv.Required() {
		t.Logf("SKIPPED on PostgreSQL (SQLite only): %s is not set (eval \"$(scripts/services.sh)\" starts one)", pgDSNEnv)
		return out
	}
	dsn := testenv.Postgres(t)
	var once sync.Once
	var schemaDSN string
	out = append(out, target{name: "postgres", fill: func(t *testing.T, opts Options) Options {
		once.Do(func() { schemaDSN = pgSchema(t, dsn) })
		opts.Driver, opts.DSN = Postgres, schemaDSN
		return opts
	}})
	return out
}

// eachTarget runs fn as a subtest on every target.
func eachTarget(t *testing.T, fn func(t *testing.T, tg target)) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) { fn(t, tg) })
	}
}

func openTest(t *testing.T, opts Options) *Store {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quietLog()
	}
	st, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// pgSchema creates a schema for one test and returns a DSN whose
// connections use it.
func pgSchema(t testing.TB, dsn string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("PostgreSQL from %s: %v", pgDSNEnv, err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	rand.Read(b[:])
	schema := "hgtest_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
	})
	return withSearchPath(dsn, schema)
}

func withSearchPath(dsn, schema string) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + "search_path=" + schema
	}
	return dsn + " search_path=" + schema
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// clock is a settable time for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestOpenRefusesUnknownDriverAndBadDSN(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, Options{Driver: "mysql"}); err == nil || !strings.Contains(err.Error(), "unknown driver") {
		t.Fatalf("unknown driver: %v", err)
	}
	_, err := Open(ctx, Options{Driver: Postgres, DSN: "postgres://u:hunter2secret@127.0.0.1:1/x?connect_timeout=1"})
	if err == nil {
		t.Fatal("unreachable PostgreSQL opened")
	}
	if strings.Contains(err.Error(), "hunter2secret") {
		t.Fatalf("error quotes the password: %v", err)
	}
}

func TestMemoryStore(t *testing.T) {
	st := openTest(t, Options{Path: MemoryPath})
	if _, err := st.InsertExecutions(context.Background(), []Execution{testExecution("h", "e1")}); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.CountExecutions(context.Background(), ExecutionFilter{}); n != 1 {
		t.Fatalf("count %d", n)
	}
}
