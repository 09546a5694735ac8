package store

import (
	"context"
	"slices"
	"testing"
)

// ExecutionFilter.Tenants keeps the executions of the tenants' sessions:
// the "tenant:" prefix, or the tool-call log's tenant for sessions
// without one (a fingerprinted session); an empty list keeps nothing.
func TestListExecutionsByTenant(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx := context.Background()
		st := tg.open(t, Options{})
		var xs []Execution
		for i, s := range []string{"acme:s1", "globex:s1", "fp-123", "acmeco:s1"} {
			x := testExecution("h", string(rune('a'+i)))
			x.SessionID = s
			xs = append(xs, x)
		}
		if _, err := st.InsertExecutions(ctx, xs); err != nil {
			t.Fatal(err)
		}
		if _, err := st.InsertToolCalls(ctx, []ToolCall{{ID: "c1", Tenant: "acme", SessionID: "fp-123", Tool: "t", ArgsHash: "a", Latency: -1, CreatedAt: xs[0].CreatedAt}}); err != nil {
			t.Fatal(err)
		}
		sessions := func(tenants []string) []string {
			t.Helper()
			rows, err := st.ListExecutions(ctx, ExecutionFilter{Tenants: tenants})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rows {
				out = append(out, r.SessionID)
			}
			slices.Sort(out)
			return out
		}
		for _, tc := range []struct {
			tenants []string
			want    []string
		}{
			{[]string{"acme"}, []string{"acme:s1", "fp-123"}},
			{[]string{"globex", "acmeco"}, []string{"acmeco:s1", "globex:s1"}},
			{[]string{}, nil},
			{nil, []string{"acme:s1", "acmeco:s1", "fp-123", "globex:s1"}},
		} {
			if got := sessions(tc.tenants); !slices.Equal(got, tc.want) {
				t.Errorf("tenants %v: sessions %v, want %v", tc.tenants, got, tc.want)
			}
		}
	})
}
