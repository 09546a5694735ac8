package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/hookgate/hookgate/hooks"
)

// NotifyName is the registry name of the notify built-in.
const NotifyName = "notify"

// notifyParams are notify's `with:` parameters.
//
//	with:
//	  channel: ops                                 # a configured channel ("" = the first; a tenant's: one of its own, "" = its first)
//	  text: "{{.toolName}} ran in {{.sessionId}}"  # Go text/template over the event (camelCase fields)
type notifyParams struct {
	Channel string `json:"channel"`
	Text    string `json:"text"`
}

// TenantMessenger is the Messenger of a wiring with tenants: it sends a
// tenant's message only to one of that tenant's own channels ("" is its
// first), never to the operator's or another tenant's, and refuses the
// message when the channel is not the tenant's.
type TenantMessenger interface {
	SendTenantMessage(ctx context.Context, tenant, channel, text string) error
}

// notify sends a message to a channel for matching events ("an order was
// placed"). On an observing event it never delays the agent. A tenant's
// (untrusted) notify sends through the TenantMessenger with the event's
// tenant, which is the hook's own: a tenant's hook is always scoped to it.
type notify struct {
	channel string
	text    *template.Template
	send    hooks.Messenger
	tenants TenantMessenger // set for an untrusted hook
}

// NewNotify is the factory of notify, for any event.
func NewNotify(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	var p notifyParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Text) == "" {
		return nil, errors.New("with.text is required")
	}
	if cfg.Deps.Messenger == nil {
		return nil, errors.New("notify needs a channel: configure channels")
	}
	t, err := template.New(cfg.HookID).Option("missingkey=zero").Parse(p.Text)
	if err != nil {
		return nil, fmt.Errorf("with.text: %w", err)
	}
	n := &notify{channel: p.Channel, text: t, send: cfg.Deps.Messenger}
	if !cfg.Trusted {
		tm, ok := cfg.Deps.Messenger.(TenantMessenger)
		if !ok {
			return nil, errors.New("a tenant's notify needs a messenger that keeps tenants to their own channels")
		}
		n.tenants = tm
	}
	return n, nil
}

func (n *notify) Handle(ctx context.Context, ev *hooks.Event) (hooks.Result, error) {
	var b strings.Builder
	if err := n.text.Execute(&b, eventFields(ev)); err != nil {
		return hooks.Result{}, fmt.Errorf("notify: rendering the text: %w", err)
	}
	if err := n.deliver(ctx, ev, b.String()); err != nil {
		return hooks.Result{}, fmt.Errorf("notify: %w", err)
	}
	return hooks.Result{Decision: hooks.Allow, SideEffects: []string{"notified " + n.channelName()}}, nil
}

// deliver sends text: an operator's hook to the channel it names (or the
// first), a tenant's only to the tenant's own.
func (n *notify) deliver(ctx context.Context, ev *hooks.Event, text string) error {
	if n.tenants == nil {
		return n.send.SendMessage(ctx, n.channel, text)
	}
	if ev.Tenant == "" {
		return errors.New("a tenant's hook fired without a tenant: nothing sent")
	}
	return n.tenants.SendTenantMessage(ctx, ev.Tenant, n.channel, text)
}

func (n *notify) channelName() string {
	if n.channel == "" {
		return "the first channel"
	}
	return n.channel
}

// eventFields exposes the event to templates under its JSON names.
func eventFields(ev *hooks.Event) map[string]any {
	m := map[string]any{
		"event": string(ev.Event), "eventId": ev.EventID, "sessionId": ev.SessionID, "parentSessionId": ev.ParentSessionID,
		"tenant": ev.Tenant, "agent": ev.Agent, "user": ev.User, "model": ev.Model,
		"toolName": ev.ToolName, "toolCallId": ev.ToolCallID, "toolInput": ev.ToolInput,
		"prompt": ev.Prompt, "response": ev.Response,
	}
	if ev.ToolResult != nil {
		m["toolResult"] = *ev.ToolResult
	}
	return m
}
