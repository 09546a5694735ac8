package app

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/hookgate/hookgate/approvals"
	"github.com/hookgate/hookgate/hooks/builtin"
	"github.com/hookgate/hookgate/proxy"
	"github.com/hookgate/hookgate/store"
)

// approvalDesk is the admin API's and the console's view of the approval
// gate.
type approvalDesk struct{ gate *approvals.Gate }

var _ proxy.ApprovalDesk = approvalDesk{}

// recentEnded is how many answered or expired questions status "recent"
// shows.
const recentEnded = 50

// List answers GET /admin/approvals?status=...: one of the four statuses,
// or "all" (or no status) for every question, as the command line's
// --status all does; "recent" (the console's) is every pending question
// and the newest answered or expired ones. A token scoped to tenants sees
// their questions only.
func (d approvalDesk) List(ctx context.Context, status string, tenants []string) (any, error) {
	if status == "all" {
		status = ""
	}
	var rows []store.Confirmation
	var err error
	if status == "recent" {
		rows, err = d.gate.Recent(ctx, recentEnded)
	} else {
		rows, err = d.gate.List(ctx, store.ConfirmationStatus(status))
	}
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(rows))
	for _, c := range rows {
		if !inScope(c, tenants) {
			continue
		}
		out = append(out, describe(c))
	}
	return map[string]any{"approvals": out}, nil
}

// Decide answers question id for by, through the gate's atomic claim. A
// question outside the token's tenants is not found.
func (d approvalDesk) Decide(ctx context.Context, id string, approve bool, by, comment string, tenants []string) (any, int, error) {
	if tenants != nil {
		c, err := d.gate.Get(ctx, id)
		if err == nil && !inScope(c, tenants) {
			err = store.ErrNotFound
		}
		if err != nil {
			return deskError(err)
		}
	}
	c, err := d.gate.Answer(ctx, id, approve, by, comment)
	if err != nil {
		return deskError(err)
	}
	return describe(c), http.StatusOK, nil
}

func deskError(err error) (any, int, error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, http.StatusNotFound, err
	case errors.Is(err, store.ErrNotPending), errors.Is(err, store.ErrMismatch):
		return nil, http.StatusConflict, err
	case errors.Is(err, store.ErrExpired):
		return nil, http.StatusGone, err
	default:
		return nil, http.StatusInternalServerError, err
	}
}

func (d approvalDesk) Callback(ctx context.Context, channel string, header http.Header, body []byte) (int, []byte) {
	return d.gate.Callback(ctx, channel, header, body)
}

// questionTenant is the tenant a question was asked for ("" for the
// operator's own traffic).
func questionTenant(c store.Confirmation) string {
	var p struct {
		Tenant string `json:"tenant"`
	}
	_ = json.Unmarshal([]byte(c.Payload), &p)
	return p.Tenant
}

// inScope reports whether a token scoped to tenants (nil: all) sees c.
func inScope(c store.Confirmation, tenants []string) bool {
	return tenants == nil || slices.Contains(tenants, questionTenant(c))
}

// describe is approvals.Describe with the tenant and agent, and with the
// arguments withheld when secret_guard (default kinds) finds a
// credential in them: approvers' screens, chat logs and browser caches
// never show one.
func describe(c store.Confirmation) map[string]any {
	out := approvals.Describe(c)
	var p struct {
		Tenant string `json:"tenant"`
		Agent  string `json:"agent"`
	}
	_ = json.Unmarshal([]byte(c.Payload), &p)
	out["tenant"], out["agent"] = p.Tenant, p.Agent
	if args, _ := out["arguments"].(string); args != "" {
		if kind := builtin.SecretIn(args); kind != "" {
			out["arguments"] = "(withheld: the arguments hold what looks like a " + kind + ")"
			out["arguments_withheld"] = true
		}
	}
	if note, _ := out["comment"].(string); note != "" {
		if kind := builtin.SecretIn(note); kind != "" {
			out["comment"] = "(withheld: the comment holds what looks like a " + kind + ")"
		}
	}
	return out
}
