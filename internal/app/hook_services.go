package app

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/hooks/builtin"
	"github.com/hookgate/hookgate/proxy"
	"github.com/hookgate/hookgate/store"
)

// toolCallLog writes audit_log's records through the audit queue.
type toolCallLog struct{ audit *AuditRecorder }

var _ hooks.ToolCallRecorder = toolCallLog{}

func (l toolCallLog) RecordToolCall(r hooks.ToolCallRecord) {
	hash, err := store.InputHash(r.Input)
	if err != nil {
		hash = "unhashable"
	}
	latency := time.Duration(-1)
	if !r.CalledAt.IsZero() {
		latency = time.Since(r.CalledAt)
	}
	l.audit.w.Record(store.AuditEntry{ToolCall: &store.ToolCall{
		ID: r.SessionID + "/" + r.ToolCallID, Tenant: r.Tenant, SessionID: r.SessionID, Tool: r.Tool,
		ArgsHash: hash, ResultBytes: int64(r.ResultBytes), Latency: latency, CreatedAt: time.Now(),
	}})
}

// messenger sends notify's messages through the channels in force.
type messenger struct{ a *App }

var _ hooks.Messenger = messenger{}

func (m messenger) SendMessage(ctx context.Context, channel, text string) error {
	pol := m.a.current.Load()
	if pol == nil {
		return fmt.Errorf("no configuration in force")
	}
	if channel == "" && len(pol.cfg.Channels) > 0 {
		channel = pol.cfg.Channels[0].Name
	}
	ch, ok := pol.channels[channel]
	if !ok {
		return fmt.Errorf("no channel named %q", channel)
	}
	return ch.SendMessage(ctx, text)
}

var _ builtin.TenantMessenger = messenger{}

// SendTenantMessage sends a tenant's message to one of the tenant's own
// channels in the configuration in force: channel, when it is the
// tenant's, or its first when channel is "". Any other channel, or a
// tenant with none, is refused: a tenant's message never reaches the
// operator's channels or another tenant's.
func (m messenger) SendTenantMessage(ctx context.Context, tenant, channel, text string) error {
	pol := m.a.current.Load()
	if pol == nil {
		return fmt.Errorf("no configuration in force")
	}
	name, err := tenantOwnChannel(pol.cfg, tenant, channel)
	if err != nil {
		return err
	}
	ch, ok := pol.channels[name]
	if !ok {
		return fmt.Errorf("no channel named %q", name)
	}
	return ch.SendMessage(ctx, text)
}

// tenantOwnChannel picks the channel a tenant's message goes to: want when
// it is one of the tenant's channels, its first when want is "".
func tenantOwnChannel(cfg *config.Config, tenant, want string) (string, error) {
	t := cfg.Tenant(tenant)
	switch {
	case t == nil:
		return "", fmt.Errorf("no tenant %q in the configuration in force: nothing sent", tenant)
	case len(t.Channels) == 0:
		return "", fmt.Errorf("tenant %s has no channel of its own: nothing sent", tenant)
	case want == "":
		return t.Channels[0], nil
	case slices.Contains(t.Channels, want):
		return want, nil
	}
	return "", fmt.Errorf("channel %q is not one of tenant %s's channels: nothing sent", want, tenant)
}

// readOnly is the run-time read-only switch readonly_guard consults: a
// switch thrown through the admin API (persisted in the store) wins;
// otherwise a tenant's read_only flag in the configuration in force;
// otherwise the hook's own default.
//
// The store's answers are cached. While the store hears other instances'
// changes (store.Live: PostgreSQL's notifications), an answer stays until
// a change of its tenant is heard (store.TopicSettings), and the whole
// cache is dropped when notifications are heard again after a gap; while
// it hears none, an answer is kept for a second, so a request pays a
// database read at most once a second per tenant.
type readOnly struct {
	a       *App
	mu      sync.Mutex
	cache   map[string]readOnlyAnswer
	gen     uint64 // bumped by every invalidation
	unwatch func()
}

type readOnlyAnswer struct {
	value, set bool
	at         time.Time
}

const readOnlyCacheTTL = time.Second

var _ hooks.ReadOnlyState = (*readOnly)(nil)

// newReadOnly returns the switch, watching a's store for changes.
func newReadOnly(a *App) *readOnly {
	r := &readOnly{a: a, cache: map[string]readOnlyAnswer{}}
	r.unwatch = a.persistence.Store.Watch(r.notified)
	return r
}

func (r *readOnly) notified(c store.Change) {
	switch c.Topic {
	case store.TopicSettings:
		r.forget(c.Payload)
	case store.TopicResync:
		r.mu.Lock()
		clear(r.cache)
		r.gen++
		r.mu.Unlock()
	}
}

func (r *readOnly) ReadOnly(ctx context.Context, tenant string) (bool, bool, error) {
	value, set, err := r.stored(ctx, tenant)
	if err != nil {
		return false, false, err
	}
	if !set && tenant != "" {
		if t := r.a.CurrentConfig().Tenant(tenant); t != nil && t.ReadOnly {
			value, set = true, true
		}
	}
	return value, set, nil
}

// stored is the store's switch of tenant, from the cache when it holds.
func (r *readOnly) stored(ctx context.Context, tenant string) (bool, bool, error) {
	st := r.a.persistence.Store
	live := st.Live()
	r.mu.Lock()
	if ans, ok := r.cache[tenant]; ok && (live || time.Since(ans.at) < readOnlyCacheTTL) {
		r.mu.Unlock()
		return ans.value, ans.set, nil
	}
	gen := r.gen
	r.mu.Unlock()
	value, set, err := st.TenantReadOnly(ctx, tenant)
	if err != nil {
		return false, false, err
	}
	r.mu.Lock()
	// A change heard while this read ran may be newer than what it read:
	// then the answer is used once, not cached.
	if r.gen == gen {
		r.cache[tenant] = readOnlyAnswer{value: value, set: set, at: time.Now()}
	}
	r.mu.Unlock()
	return value, set, nil
}

// forget drops a cached answer after the switch was thrown (here, or
// heard from another instance).
func (r *readOnly) forget(tenant string) {
	r.mu.Lock()
	delete(r.cache, tenant)
	r.gen++
	r.mu.Unlock()
}

// organisation is the tenant id the admin API uses for the whole
// organisation's switch.
const organisation = "*"

// tenantDesk throws the read-only switch for the admin API.
type tenantDesk struct {
	a  *App
	ro *readOnly
}

var _ proxy.TenantDesk = tenantDesk{}

func (d tenantDesk) SetReadOnly(ctx context.Context, tenant string, value *bool, by string) (any, int, error) {
	id := tenant
	if tenant == organisation {
		id = ""
	} else if d.a.CurrentConfig().Tenant(tenant) == nil {
		return nil, http.StatusNotFound, fmt.Errorf("no tenant %q", tenant)
	}
	if err := d.a.persistence.Store.SetTenantReadOnly(ctx, id, value, by); err != nil {
		return nil, http.StatusInternalServerError, err
	}
	d.ro.forget(id)
	out := map[string]any{"tenant": tenant, "updated_by": by}
	if value == nil {
		out["read_only"] = nil
		out["cleared"] = true
	} else {
		out["read_only"] = *value
	}
	return out, http.StatusOK, nil
}

// tenantChannel is a tenant's first own channel ("" when it has none).
func tenantChannel(a *App) func(string) string {
	return func(tenant string) string {
		if t := a.CurrentConfig().Tenant(tenant); t != nil && len(t.Channels) > 0 {
			return t.Channels[0]
		}
		return ""
	}
}
