package interceptors

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/hookgate/hookgate/hooks"
)

// identity is who a request comes from: its session, parent session,
// tenant, agent and end user, and the metadata the operator exposes to
// hooks. It never holds a credential.
type identity struct {
	session  string
	parent   string
	tenant   string
	agent    string
	user     string
	provider string
	model    string
	metadata map[string]any
	bypass   bool // an evaluation key: blocking hooks are skipped, audited as bypassed
}

// fingerprintSession names a session that carries no session header: a
// hash of tenant, system prompt and first user message. Two conversations
// that open identically share it, which is why the README recommends the
// header.
func fingerprintSession(tenant, system, firstUser string) string {
	h := sha256.New()
	h.Write([]byte(tenant))
	h.Write([]byte{0})
	h.Write([]byte(system))
	h.Write([]byte{0})
	h.Write([]byte(firstUser))
	return "fp-" + hex.EncodeToString(h.Sum(nil)[:12])
}

// eventID derives an event's id from what identifies it (session, event,
// tool call id or message position), so a retried delivery of the same
// event carries the same id and is audited once.
func eventID(session string, ev hooks.EventName, parts ...string) string {
	h := sha256.New()
	h.Write([]byte(session))
	h.Write([]byte{0})
	h.Write([]byte(ev))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return "ev-" + hex.EncodeToString(h.Sum(nil)[:16])
}

// event builds a hook event for this identity.
func (id *identity) event(name hooks.EventName, parts ...string) *hooks.Event {
	return &hooks.Event{
		Event:           name,
		EventID:         eventID(id.session, name, parts...),
		SessionID:       id.session,
		ParentSessionID: id.parent,
		Tenant:          id.tenant,
		Agent:           id.agent,
		User:            id.user,
		Provider:        id.provider,
		Model:           id.model,
		Metadata:        id.metadata,
		Bypass:          id.bypass,
	}
}

// promptKey identifies a user message across resends: its position among
// the user messages and a hash of its text.
func promptKey(ordinal int, text string) string {
	sum := sha256.Sum256([]byte(text))
	return strconv.Itoa(ordinal) + ":" + hex.EncodeToString(sum[:8])
}

// blockNote renders the text an agent sees in place of a blocked call.
func blockNote(template, tool, hook, reason string) string {
	return strings.NewReplacer("{{tool}}", tool, "{{hook}}", hook, "{{reason}}", reason).Replace(template)
}
