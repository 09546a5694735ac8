package proxy

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/internal/admission"
	"github.com/hookgate/hookgate/providers"
)

// runtime is everything a request is served with that a reload replaces:
// upstreams, routes, interceptors (and the hook engine behind them), and
// tenants. A request takes the runtime current when it arrives and keeps it
// until its response, stream included, has ended; a retired runtime is
// released once the last such request has left.
type runtime struct {
	cfg          *Config
	upstreams    []*upstream
	byName       map[string]*upstream
	router       router
	interceptors map[string]interceptors.Interceptor // by format name
	tenants      *tenantKeys
	tenantErrors map[string]error
	streams      *admission.Limit
	hookSlots    *admission.Limit

	inflight atomic.Int64
	retired  atomic.Bool
	release  func()
	once     sync.Once
}

func newRuntime(cfg *Config, opts Options) (*runtime, error) {
	rt := &runtime{
		cfg:          cfg,
		byName:       map[string]*upstream{},
		interceptors: opts.Interceptors,
		tenantErrors: opts.TenantErrors,
		release:      opts.Release,
		streams:      opts.Streams,
		hookSlots:    opts.Hooks,
	}
	for _, uc := range cfg.Upstreams {
		u, err := newUpstream(uc, cfg.Timeouts)
		if err != nil {
			return nil, err
		}
		rt.upstreams = append(rt.upstreams, u)
		rt.byName[u.name] = u
	}
	if len(rt.upstreams) == 0 {
		return nil, errors.New("proxy: no upstream configured")
	}
	var served []*providers.Format
	for name := range rt.interceptors {
		f := providers.FormatByName(name)
		if f == nil {
			return nil, fmt.Errorf("proxy: an interceptor for %q, which is no registered format", name)
		}
		served = append(served, f)
	}
	rt.router = router{formats: providers.NewFormatTable(served), passthrough: cfg.PassthroughRoutes, hooksActive: opts.HooksActive}
	if len(cfg.Tenants) > 0 {
		rt.tenants = newTenantKeys(cfg.Tenants)
	}
	return rt, nil
}

// served is the format the route of a request path (routePath) is read
// as, when this runtime has its interceptor; nil otherwise.
func (rt *runtime) served(path, query string) *providers.Format {
	return rt.router.formats.MatchLower(path, query)
}

// enter marks a request served by this runtime.
func (rt *runtime) enter() { rt.inflight.Add(1) }

// leave marks a request done; the last one out of a retired runtime
// releases it.
func (rt *runtime) leave() {
	if rt.inflight.Add(-1) == 0 && rt.retired.Load() {
		rt.free()
	}
}

// retire marks the runtime replaced; it is released now if idle, or when
// its last request leaves.
func (rt *runtime) retire() {
	rt.retired.Store(true)
	if rt.inflight.Load() == 0 {
		rt.free()
	}
}

func (rt *runtime) free() {
	rt.once.Do(func() {
		for _, u := range rt.upstreams {
			u.client.CloseIdleConnections()
		}
		if rt.release != nil {
			rt.release()
		}
	})
}
