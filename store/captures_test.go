package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A captured event goes through the audit queue sealed: the row holds no
// plain text of it, opens with the key for its own id only, and carries
// none of the configuration's secrets.
func TestCapturesAreSealedAndBoundToTheirRow(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		clk := newClock()
		st := tg.open(t, Options{Now: clk.Now})
		key, _ := ParseAuditKey(hex.EncodeToString(testKeyRaw))
		w, _ := newTestWriter(t, st, AuditOptions{Key: key, Secrets: []string{secretCanary}, CaptureTTL: time.Hour})
		record := func(session, cmd string) {
			w.Record(AuditEntry{At: clk.Now(), Capture: &CaptureRecord{
				SessionID: session, Event: "pre_tool_use", Tenant: "acme", Agent: "claude-code", Tool: "Bash",
				Decision: "block", DecidedBy: "no-rm",
				Record: map[string]any{"event": map[string]any{"toolInput": map[string]any{"command": cmd}}},
			}})
		}
		record("s1", "rm -rf /srv/"+rawCanary+" --token "+secretCanary)
		record("s2", "ls")
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := st.ListCaptures(ctx, CaptureFilter{})
		if err != nil || len(rows) != 2 {
			t.Fatalf("rows %d, %v", len(rows), err)
		}
		r := rows[0]
		if r.SessionID != "s1" || r.Tenant != "acme" || r.Agent != "claude-code" || r.Tool != "Bash" || r.Decision != "block" || r.DecidedBy != "no-rm" {
			t.Fatalf("plain columns: %+v", r)
		}
		if !r.ExpiresAt.Equal(r.CreatedAt.Add(time.Hour)) {
			t.Fatalf("expires %v, created %v: want capture_ttl later", r.ExpiresAt, r.CreatedAt)
		}
		if bytes.Contains(r.Sealed, []byte(rawCanary)) || bytes.Contains(r.Sealed, []byte("rm -rf")) {
			t.Fatal("the sealed blob holds the input in plain text")
		}
		plain, err := key.OpenCapture(r.ID, r.Sealed)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(plain) || !strings.Contains(string(plain), rawCanary) {
			t.Fatalf("opened record: %s", plain)
		}
		if strings.Contains(string(plain), secretCanary) {
			t.Fatalf("a configuration secret was captured: %s", plain)
		}

		// Another key, another row's id, an error detail's binding: none
		// opens, and the error says why.
		other, _ := ParseAuditKey(hex.EncodeToString(bytes.Repeat([]byte{9}, 32)))
		if _, err := other.OpenCapture(r.ID, r.Sealed); !errors.Is(err, ErrCaptureSeal) || !strings.Contains(err.Error(), "wrong audit key") {
			t.Fatalf("wrong key: %v", err)
		}
		if _, err := key.OpenCapture(rows[1].ID, r.Sealed); !errors.Is(err, ErrCaptureSeal) {
			t.Fatalf("moved to another row: %v", err)
		}
		if _, err := key.Open(r.ID, r.Sealed); err == nil {
			t.Fatal("a captured event opened as an error detail")
		}
		if _, err := key.OpenCapture(r.ID, r.Sealed[:10]); !errors.Is(err, ErrCaptureSeal) {
			t.Fatalf("damaged: %v", err)
		}

		only, err := st.ListCaptures(ctx, CaptureFilter{SessionID: "s2"})
		if err != nil || len(only) != 1 || only[0].ID != rows[1].ID {
			t.Fatalf("session filter: %+v, %v", only, err)
		}
	})
}

// Without a key nothing is captured (counted as dropped), never plain.
func TestCapturesNeedAKey(t *testing.T) {
	ctx := context.Background()
	st := openTest(t, Options{Driver: SQLite, Path: t.TempDir() + "/hookgate.db"})
	w, _ := newTestWriter(t, st, AuditOptions{})
	w.Record(AuditEntry{Capture: &CaptureRecord{SessionID: "s", Event: "pre_tool_use", Decision: "allow", Record: map[string]any{}}})
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if rows, err := st.ListCaptures(ctx, CaptureFilter{}); err != nil || len(rows) != 0 {
		t.Fatalf("rows %d, %v", len(rows), err)
	}
	if n := testutil.ToFloat64(w.m.dropped.WithLabelValues(DropNoKey)); n != 1 {
		t.Fatalf("dropped %v, want 1", n)
	}
}

// Captures expire after capture_ttl: listing skips them, purging deletes
// them, and purging all deletes the rest.
func TestCapturesExpireAndPurge(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		clk := newClock()
		st := tg.open(t, Options{Now: clk.Now})
		key, _ := ParseAuditKey(hex.EncodeToString(testKeyRaw))
		w, _ := newTestWriter(t, st, AuditOptions{Key: key, CaptureTTL: 2 * time.Hour})
		rec := func(session string) {
			w.Record(AuditEntry{At: clk.Now(), Capture: &CaptureRecord{SessionID: session, Event: "pre_tool_use", Decision: "allow", Record: map[string]any{"n": session}}})
		}
		rec("old")
		clk.Add(90 * time.Minute)
		rec("new")
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		start := clk.Now()
		clk.Add(time.Hour) // "old" is 2h30 old, "new" 1h
		if n, err := st.PurgeCaptures(ctx, false); err != nil || n != 1 {
			t.Fatalf("purged %d, %v; want the one expired", n, err)
		}
		rows, err := st.ListCaptures(ctx, CaptureFilter{})
		if err != nil || len(rows) != 1 || rows[0].SessionID != "new" {
			t.Fatalf("left %+v, %v", rows, err)
		}
		if rows, _ := st.ListCaptures(ctx, CaptureFilter{Since: start.Add(time.Minute)}); len(rows) != 0 {
			t.Fatalf("since filter kept %d", len(rows))
		}
		clk.Add(2 * time.Hour)
		if rows, _ := st.ListCaptures(ctx, CaptureFilter{}); len(rows) != 0 {
			t.Fatalf("an expired capture is still listed: %+v", rows)
		}
		rec("later")
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := st.PurgeCaptures(ctx, true); err != nil || n != 2 {
			t.Fatalf("purge all: %d, %v", n, err)
		}
	})
}
