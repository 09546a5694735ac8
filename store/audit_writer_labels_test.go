package store

import (
	"context"
	"strings"
	"testing"
)

// The tool's name, tenant, agent and reason reach the row; the reason is
// redacted and cut like an error, a long tool name is cut, and nothing of
// the input but its hash is stored.
func TestAuditWriterKeepsToolTenantAgentReason(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		st := tg.open(t, Options{})
		w, _ := newTestWriter(t, st, AuditOptions{Secrets: []string{secretCanary}})
		long := strings.Repeat("t", 300)
		w.Record(AuditEntry{HookID: "h", Event: "pre_tool_use", EventID: "e1", SessionID: "s", Decision: "would_block",
			Tool: "Bash", Tenant: "acme", Agent: "coder", Reason: "matched key " + secretCanary + strings.Repeat(" r", 200),
			Input: map[string]any{"command": "rm -rf /srv/ARGS-CANARY"}})
		w.Record(AuditEntry{HookID: "h", Event: "pre_tool_use", EventID: "e2", SessionID: "s", Decision: "allow", Tool: long})
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := st.ListExecutions(ctx, ExecutionFilter{})
		if err != nil || len(rows) != 2 {
			t.Fatalf("rows %d, %v", len(rows), err)
		}
		for _, x := range rows {
			switch x.Decision {
			case "would_block":
				if x.Tool != "Bash" || x.Tenant != "acme" || x.Agent != "coder" {
					t.Errorf("row %+v", x)
				}
				if strings.Contains(x.Reason, secretCanary) || !strings.HasPrefix(x.Reason, "matched key ") || len([]rune(x.Reason)) > ErrorMax {
					t.Errorf("reason %q: want it redacted and cut to %d", x.Reason, ErrorMax)
				}
				if strings.Contains(x.InputHash, "ARGS") || x.Error != "" {
					t.Errorf("row %+v holds the input", x)
				}
			default:
				if len(x.Tool) != MaxLabelText {
					t.Errorf("tool cut to %d, want %d", len(x.Tool), MaxLabelText)
				}
			}
		}
	})
}
