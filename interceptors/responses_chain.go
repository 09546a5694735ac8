package interceptors

import (
	"encoding/json"
	"log/slog"

	"github.com/hookgate/hookgate/providers"
)

// An agent on the Responses API may keep its conversation at the upstream
// and send only the new items, pointing at the response they continue
// with previous_response_id. Such a request has neither the system text
// nor the first prompt a session fingerprint is made of, nor the calls its
// tool outputs answer; and the stored response still holds every call the
// model made, including those hookgate blocked, which the agent never saw
// and will never answer. The upstream refuses a turn that leaves a call of
// the previous response unanswered.
//
// A conversation object (conversation: <id>) keeps the state the same
// way; its link is that of its latest response.
//
// So for every response it relays hookgate remembers a link: the session,
// how many prompts the chain holds, the calls (for post_tool_use on their
// outputs) and the blocked calls with the note their output must carry.
// The next request on the chain joins that session and gets a synthetic
// output ("blocked by <hook>: <reason>") for each blocked call it does not
// answer itself.
//
// Links live in the session memory, so that they survive a reload, a
// restart (with the store) and reach other instances on a shared store.
// Their ids start with a tab: a session id from a header is trimmed and a
// fingerprint starts with "fp-", so no session can take a link's place.

// responseChains reads and writes links in the session memory.
type responseChains struct{ mem Memory }

// chainLink is what the request after a response needs.
type chainLink struct {
	Session string              `json:"session"`
	Users   int                 `json:"users,omitempty"`
	Calls   map[string]turnCall `json:"calls,omitempty"`
	Blocked []blockedOutput     `json:"blocked,omitempty"`
}

// blockedOutput is the output hookgate gives the upstream for a call it
// blocked.
type blockedOutput struct {
	Kind   providers.ResponsesCallKind `json:"kind"`
	CallID string                      `json:"call_id"`
	Output string                      `json:"output"`
}

// Bounds of a link: the calls it lists and the arguments it keeps of each
// (larger ones keep their name only; post_tool_use then has no input).
const (
	maxLinkCalls     = 256
	maxLinkArguments = 64 << 10
)

// linkKey is the session-memory id of the link of a tenant's response,
// or of the latest response in a conversation (conversation links to that
// response's successor, which the agent sends with conversation: <id>).
func linkKey(tenant, kind, id string) string {
	return "\tresponses-chain\t" + tenant + "\t" + kind + "\t" + id
}

// Kinds of links.
const (
	responseLink     = "response"
	conversationLink = "conversation"
)

// linkField is the entry of the link's record that holds it.
const linkField = "link"

// load returns a link, if hookgate recorded it; an error when the memory
// cannot be reached (the link may exist).
func (rc responseChains) load(tenant, kind, id string) (chainLink, bool, error) {
	s, err := rc.mem.Lock(linkKey(tenant, kind, id))
	if err != nil {
		return chainLink{}, false, err
	}
	raw, ok := s.Prompts[linkField]
	_ = rc.mem.Unlock(s) // nothing changed: nothing to save, nothing to fail
	var l chainLink
	if !ok || json.Unmarshal([]byte(raw), &l) != nil {
		return chainLink{}, false, nil
	}
	return l, true, nil
}

// save records a link.
func (rc responseChains) save(tenant, kind, id string, l chainLink, log *slog.Logger) {
	if id == "" {
		return
	}
	raw, err := json.Marshal(l)
	if err != nil {
		log.Warn("responses chain: link not recorded", "err", err)
		return
	}
	s, err := rc.mem.Lock(linkKey(tenant, kind, id))
	if err == nil {
		s.Prompts[linkField] = string(raw)
		err = rc.mem.Unlock(s)
	}
	if err != nil {
		// The response has gone out: the next request on the chain finds
		// no link and is read as a chain hookgate did not see.
		log.Warn("responses chain: link not recorded; session memory unavailable", "err", err)
	}
}

// addCall lists a call of the response in the link.
func (l *chainLink) addCall(callID, name, arguments string) {
	if callID == "" || len(l.Calls) >= maxLinkCalls {
		return
	}
	if l.Calls == nil {
		l.Calls = map[string]turnCall{}
	}
	if len(arguments) > maxLinkArguments {
		arguments = ""
	}
	l.Calls[callID] = turnCall{Name: name, Arguments: arguments}
}

// block records a call hookgate blocked and the output the upstream gets
// for it.
func (l *chainLink) block(kind providers.ResponsesCallKind, callID, hook, reason string) {
	if callID == "" || len(l.Blocked) >= maxLinkCalls {
		return
	}
	l.Blocked = append(l.Blocked, blockedOutput{Kind: kind, CallID: callID, Output: "blocked by " + hook + ": " + reason})
}

// missingOutputs are the outputs of the blocked calls that the request
// does not answer itself.
func (l *chainLink) missingOutputs(view *providers.ResponsesRequest) []providers.ToolOutput {
	var out []providers.ToolOutput
	for _, b := range l.Blocked {
		answered := false
		for _, it := range view.Input {
			if it.IsOutput() && it.CallID == b.CallID {
				answered = true
				break
			}
		}
		if !answered {
			out = append(out, providers.ToolOutput{Kind: b.Kind, CallID: b.CallID, Output: b.Output})
		}
	}
	return out
}

// newLink starts the link of this exchange's response.
func (x *responsesExchange) newLink() chainLink {
	return chainLink{Session: x.id.session, Users: x.users}
}

// loadLink returns the link the request continues: that of its previous
// response, else that of its conversation. An unreachable memory is a 503
// (session_memory_unavailable): without the link the request would run
// under another session, and its once-per-session hooks would fire again.
func (x *responsesExchange) loadLink() (chainLink, error) {
	var l chainLink
	var err error
	switch {
	case x.view.PreviousResponseID != "":
		l, _, err = x.r.chains.load(x.tenant, responseLink, x.view.PreviousResponseID)
	case x.view.Conversation != "":
		l, _, err = x.r.chains.load(x.tenant, conversationLink, x.view.Conversation)
	}
	if err != nil {
		return chainLink{}, memoryUnavailable(err)
	}
	return l, nil
}

// saveLink records the link of this exchange's response, and makes it
// its conversation's latest.
func (x *responsesExchange) saveLink(responseID string, l chainLink) {
	log := x.r.loop.log
	x.r.chains.save(x.tenant, responseLink, responseID, l, log)
	if x.view.Conversation != "" && responseID != "" {
		x.r.chains.save(x.tenant, conversationLink, x.view.Conversation, l, log)
	}
}

// linkOnEnd records the link of a stream relayed untouched, from its
// terminal event, before that event goes to the agent (which may then
// continue the chain at once).
func (x *responsesExchange) linkOnEnd(f *providers.SSEFrame, _ Sink) (bool, error) {
	if !f.HasData() || !responsesStreamEnds(f) {
		return false, nil
	}
	resp, err := providers.ReadResponsesOutput(f.Data, providers.EventOutput)
	if err != nil {
		return false, nil
	}
	l := x.newLink()
	for _, c := range resp.Calls() {
		l.addCall(c.CallID, c.Name, callArguments(c.Kind, c.Input))
	}
	x.saveLink(resp.ID, l)
	return false, nil
}
