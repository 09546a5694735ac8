package app

import (
	"context"
	"errors"
	"net/http"

	"github.com/hookgate/hookgate/approvals"
	"github.com/hookgate/hookgate/proxy"
	"github.com/hookgate/hookgate/store"
)

// approvalDesk is the admin API's view of the approval gate.
type approvalDesk struct{ gate *approvals.Gate }

var _ proxy.ApprovalDesk = approvalDesk{}

// List answers GET /admin/approvals?status=...: one of the four statuses,
// or "all" (or no status) for every question, as the command line's
// --status all does.
func (d approvalDesk) List(ctx context.Context, status string) (any, error) {
	if status == "all" {
		status = ""
	}
	rows, err := d.gate.List(ctx, store.ConfirmationStatus(status))
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(rows))
	for i, c := range rows {
		out[i] = approvals.Describe(c)
	}
	return map[string]any{"approvals": out}, nil
}

func (d approvalDesk) Decide(ctx context.Context, id string, approve bool, by string) (any, int, error) {
	c, err := d.gate.Decide(ctx, id, approve, by)
	switch {
	case err == nil:
		return approvals.Describe(c), http.StatusOK, nil
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
