package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hookgate/hookgate/channels"
	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/hooks"
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/proxy"
)

// policy is a configuration compiled: the hook engine with the operator's
// and the tenants' hooks, the interceptors that use it, and the tenants
// whose hooks could not be loaded (their requests get a 503, never fewer
// hooks than they declared).
type policy struct {
	cfg      *config.Config
	channels map[string]channels.Channel
	engine   *hooks.Engine
	// interceptors read the registered formats, by format name.
	interceptors map[string]interceptors.Interceptor
	tenantErrors map[string]error
	// hookTenant names the tenant whose hooks file declared each hook id
	// (hook ids are unique across the operator's and tenants' hooks); an
	// operator's hook is absent.
	hookTenant map[string]string
	active     bool
}

// compilePolicy builds the policy of cfg. An error in the operator's own
// hooks fails it; an error in a tenant's hooks file only sets that tenant
// aside.
func compilePolicy(cfg *config.Config, log *slog.Logger, sv *services) (*policy, error) {
	chans, err := channels.New(cfg.Channels)
	if err != nil {
		return nil, err
	}
	p := &policy{cfg: cfg, channels: chans, tenantErrors: map[string]error{}}
	tenantSpecs := map[string][]hooks.Spec{}
	for i := range cfg.Tenants {
		t := &cfg.Tenants[i]
		specs, err := config.LoadTenantHooks(t, cfg.BaseDir)
		if err != nil {
			p.tenantErrors[t.ID] = err
			continue
		}
		tenantSpecs[t.ID] = specs
	}
	for {
		all := append([]hooks.Spec(nil), cfg.Hooks...)
		for _, t := range cfg.Tenants {
			all = append(all, tenantSpecs[t.ID]...)
		}
		engine, err := buildEngine(cfg, all, log, sv)
		if err == nil {
			p.engine = engine
			p.active = len(all) > 0
			p.hookTenant = map[string]string{}
			for id, specs := range tenantSpecs {
				for _, s := range specs {
					p.hookTenant[s.ID] = id
				}
			}
			break
		}
		var ces hooks.ConfigErrors
		if !errors.As(err, &ces) {
			p.closeChannels()
			return nil, err
		}
		progress := false
		for _, ce := range ces {
			owner := tenantOf(cfg, ce.Origin)
			if owner == "" {
				p.closeChannels()
				return nil, err
			}
			if _, set := p.tenantErrors[owner]; !set {
				p.tenantErrors[owner] = fmt.Errorf("tenant %s: %w", owner, ce)
				delete(tenantSpecs, owner)
				progress = true
			}
		}
		if !progress {
			p.closeChannels()
			return nil, err
		}
	}
	for id, err := range p.tenantErrors {
		log.Error("tenant policy refused; its requests get 503 until it is fixed", "tenant", id, "err", err)
	}
	opts := chatOptions(cfg, p.engine, sv.memory, log)
	opts.Send = p.send
	opts.Admit = sv.admit
	if sv.tools != nil {
		opts.Metrics = sv.tools.withConfig(cfg)
	}
	p.interceptors = buildInterceptors(opts)
	return p, nil
}

// send hands a pre_response text in send mode to a channel: a tenant's
// hook's text to the tenant's own first channel (never the operator's: a
// tenant without a channel gets an error, which the interceptor logs), an
// operator's hook's to the operator's first channel.
func (p *policy) send(ctx context.Context, hookID, sessionID, text string) error {
	name := ""
	if tenant, ok := p.hookTenant[hookID]; ok {
		own, err := tenantOwnChannel(p.cfg, tenant, "")
		if err != nil {
			return fmt.Errorf("pre_response hook %s: %w", hookID, err)
		}
		name = own
	} else if len(p.cfg.Channels) > 0 {
		name = p.cfg.Channels[0].Name
	}
	ch, ok := p.channels[name]
	if !ok {
		return fmt.Errorf("pre_response hook %s: no channel configured for mode send", hookID)
	}
	return ch.SendMessage(ctx, text)
}

// release frees what a retired policy holds.
func (p *policy) release() {
	// The engine's Close reports handlers that failed to stop; the policy
	// is retired either way and nothing is left to act on.
	_ = p.engine.Close()
	p.closeChannels()
}

func (p *policy) closeChannels() {
	for _, ch := range p.channels {
		ch.Close()
	}
}

// tenantOf names the tenant whose hooks file is origin ("" for the
// operator's config).
func tenantOf(cfg *config.Config, origin string) string {
	if origin == "" {
		return ""
	}
	for _, t := range cfg.Tenants {
		if t.HooksFile == origin {
			return t.ID
		}
	}
	return ""
}

// proxyOptions are the proxy's view of the policy.
func (p *policy) proxyOptions(log *slog.Logger, metrics *proxy.Metrics, lim *limits) proxy.Options {
	return proxy.Options{
		Streams:      lim.streams,
		Hooks:        lim.hooks,
		Interceptors: p.interceptors,
		HooksActive:  p.active,
		TenantErrors: p.tenantErrors,
		Release:      p.release,
		Logger:       log,
		Metrics:      metrics,
	}
}

func chatOptions(cfg *config.Config, engine *hooks.Engine, memory interceptors.Memory, log *slog.Logger) interceptors.Options {
	ic := cfg.Interception
	return interceptors.Options{
		Engine:                 engine,
		Memory:                 memory,
		MaxEventBytes:          int(cfg.Limits.MaxEventBytes),
		MaxStreamBytes:         int64(cfg.Limits.MaxStreamBytes),
		SessionHeader:          ic.SessionHeader,
		ParentHeader:           ic.ParentSessionHeader,
		AgentHeader:            ic.AgentHeader,
		MetadataHeaders:        ic.MetadataHeaders,
		BlockTemplate:          ic.BlockTemplate,
		ContextAfterSystem:     ic.ContextPosition == "append",
		Heartbeat:              cfg.Timeouts.Heartbeat.D(),
		PreResponseOnToolCalls: ic.PreResponseOnTools,
		OnBlock:                ic.OnBlock,
		MaxRetries:             ic.MaxRetries,
		RetryHooks:             anyHookRetries(cfg),
		Logger:                 log,
	}
}

// anyHookRetries reports whether a hook sets on_block: retry itself.
func anyHookRetries(cfg *config.Config) bool {
	for _, h := range cfg.Hooks {
		if h.OnBlock == "retry" {
			return true
		}
	}
	return false
}
