package app

import (
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/admission"
	"github.com/hookgate/hookgate/proxy"
)

// hookSlotWait is how long a hook execution waits for a slot under
// limits.max_concurrent_hooks before it is refused (and its call blocked):
// long enough to ride out a burst of quick hooks, short enough that no
// queue builds up behind slow ones.
const hookSlotWait = 250 * time.Millisecond

// limits are the instance's admission limits. They are shared by every
// configuration the instance serves, so a reload changes their bounds but
// never resets what is held (a stream that started before a reload still
// counts after it).
type limits struct {
	streams, hooks, approvals *admission.Limit
}

// newLimits builds the limits of cfg; refusals are counted in m.
func newLimits(cfg *config.Config, m *proxy.Metrics) *limits {
	l := &limits{
		streams:   admission.New("streams", cfg.Limits.MaxConcurrentStreams, 0, m.AdmissionRefused),
		hooks:     admission.New("hooks", cfg.Limits.MaxConcurrentHooks, hookSlotWait, m.AdmissionRefused),
		approvals: admission.New("approvals", cfg.Limits.MaxPendingApprovals, 0, m.AdmissionRefused),
	}
	m.ObserveAdmission(l.streams, l.hooks, l.approvals)
	return l
}

// apply takes the bounds of a reloaded configuration.
func (l *limits) apply(cfg *config.Config) {
	l.streams.SetMax(cfg.Limits.MaxConcurrentStreams)
	l.hooks.SetMax(cfg.Limits.MaxConcurrentHooks)
	l.approvals.SetMax(cfg.Limits.MaxPendingApprovals)
}
