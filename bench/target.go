package bench

import (
	"fmt"
	"net/url"
	"strings"
)

// TargetStarter starts a target in front of the mock upstream at upstreamURL
// for one scenario and returns the base URL that clients call in its place
// (scheme and host, no trailing slash: the scenario's path is appended) and a
// function that stops it. sc is the scenario about to run; a starter that
// configures hooks (hookgate's) reads sc.Hooks, the others ignore it.
type TargetStarter func(upstreamURL string, sc *Scenario) (baseURL string, stop func(), err error)

// Target is one thing measured.
type Target struct {
	// Name labels the target in results, e.g. "direct", "bare-hop",
	// "hookgate".
	Name string
	// Start starts it; it is called once per scenario.
	Start TargetStarter
	// Loose checks only the status of responses, not that the body equals
	// the mock's byte for byte. For gateways that rewrite bodies.
	Loose bool
}

// Direct is the baseline: the mock upstream itself.
func Direct() Target {
	return Target{Name: "direct", Start: StartDirect}
}

// StartDirect returns the upstream itself.
func StartDirect(upstreamURL string, _ *Scenario) (string, func(), error) {
	return upstreamURL, func() {}, nil
}

// BareHop is the floor: a fasthttp reverse proxy that parses nothing.
func BareHop() Target {
	return Target{Name: "bare-hop", Start: StartBareHop}
}

// URLTarget is a gateway that is already running at baseURL (for example
// another OpenAI-compatible gateway configured to forward to the mock, which
// then needs a fixed address: Config.MockAddr). Its bodies are checked
// loosely.
func URLTarget(name, baseURL string) Target {
	base := strings.TrimRight(baseURL, "/")
	return Target{
		Name:  name,
		Loose: true,
		Start: func(string, *Scenario) (string, func(), error) { return base, func() {}, nil },
	}
}

// ParseTarget reads a --target flag value: "URL" or "NAME=URL".
func ParseTarget(v string) (Target, error) {
	name, raw, ok := strings.Cut(v, "=")
	if !ok {
		name, raw = "", v
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return Target{}, fmt.Errorf("bench: target %q: want http://host:port or NAME=http://host:port", v)
	}
	if name == "" {
		name = u.Host
	}
	return URLTarget(name, raw), nil
}
