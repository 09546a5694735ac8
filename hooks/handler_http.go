package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"text/template"

	"github.com/hookgate/hookgate/internal/tracing"
)

// httpHandler POSTs each event to an operator-configured URL: the event
// JSON, or the body its `template:` renders. For blocking and contributing
// events the answer must be a 2xx with a JSON Result; for observing events
// any 2xx means delivered (so a chat webhook answering "ok" works).
// Anything else, including a redirect (never followed) and the timeout, is
// an error.
type httpHandler struct {
	id        string
	url       string // as configured; never printed
	display   string // scheme://host, for errors and side effects
	headers   http.Header
	tmpl      *template.Template // nil: the event JSON is the body
	observing bool
	transport *http.Transport
	client    *http.Client
	breaker   *breaker // nil: disabled
}

var (
	_ Handler   = (*httpHandler)(nil)
	_ Closer    = (*httpHandler)(nil)
	_ breakered = (*httpHandler)(nil)
)

// newHttpHandler checks the URL, headers and template at load and gives the
// hook its own connection pool.
func newHttpHandler(spec *Spec, deps Deps) (Handler, error) {
	hs := spec.Handler
	u, err := parseHookURL(hs.URL)
	if err != nil {
		return nil, err
	}
	if hs.Format != "" {
		return nil, fmt.Errorf("format %q applies to command hooks only", hs.Format)
	}
	headers := make(http.Header, len(hs.Headers)+1)
	for k, v := range hs.Headers {
		if !validHeaderName(k) {
			return nil, fmt.Errorf("invalid header name %q", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("header %s: value contains CR, LF or NUL", k)
		}
		headers.Set(k, v)
	}
	if headers.Get("Content-Type") == "" {
		headers.Set("Content-Type", "application/json")
	}
	if headers.Get("User-Agent") == "" {
		headers.Set("User-Agent", "hookgate-hook/1")
	}
	h := &httpHandler{
		id:        spec.ID,
		url:       u.String(),
		display:   displayURL(u),
		headers:   headers,
		observing: spec.Class() == Observing,
	}
	if hs.Template != "" {
		if h.tmpl, err = parseBodyTemplate(spec.ID, hs.Template); err != nil {
			return nil, err
		}
	}
	if h.breaker, err = newBreaker(spec, deps.Logger); err != nil {
		return nil, err
	}
	h.transport = newHookTransport()
	h.client = newHookClient(h.transport)
	return h, nil
}

// validHeaderName reports whether k is an HTTP token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// Handle POSTs ev and reads the verdict. The body is built first: an event
// the template cannot render is hookgate's failure, not the server's, and
// never reaches the breaker.
func (h *httpHandler) Handle(ctx context.Context, ev *Event) (Result, error) {
	var (
		body []byte
		err  error
	)
	if h.tmpl != nil {
		body, err = renderBody(h.tmpl, ev)
	} else {
		body, err = encodeEventJSON(ev)
	}
	if err != nil {
		return Result{}, fmt.Errorf("http hook %q: %w", h.id, err)
	}
	res, err := h.breaker.do(ctx, func() (Result, error) { return h.post(ctx, ev, body) })
	if errors.Is(err, ErrBreakerOpen) {
		return Result{}, fmt.Errorf("http hook %q: POST %s: %w", h.id, h.display, err)
	}
	return res, err
}

// post sends body and decodes the answer.
func (h *httpHandler) post(ctx context.Context, ev *Event, body []byte) (Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return Result{}, fmt.Errorf("http hook %q: new request: %w", h.id, redactURLError(err))
	}
	for k, vs := range h.headers {
		req.Header[k] = vs
	}
	req.Header.Set("X-Hookgate-Hook", h.id)
	req.Header.Set("X-Hookgate-Event", string(ev.Event))
	if ev.EventID != "" {
		req.Header.Set("X-Hookgate-Event-Id", ev.EventID)
	}
	// The hook's span goes on as the hook service's parent (W3C
	// traceparent), when the request is traced.
	tracing.InjectHTTP(ctx, req.Header)
	resp, err := h.client.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("http hook %q: POST %s: %w", h.id, h.display, redactURLError(err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		discardBody(resp.Body)
		note := ""
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			note = " (redirects are not followed)"
		}
		err := fmt.Errorf("http hook %q: POST %s: status %d%s", h.id, h.display, resp.StatusCode, note)
		if !unavailable(resp.StatusCode) {
			return Result{}, serverAnswered{err}
		}
		return Result{}, err
	}
	if h.observing {
		discardBody(resp.Body)
		return Result{Decision: Allow, SideEffects: []string{"delivered to " + h.display}}, nil
	}
	raw, err := readCapped(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return Result{}, fmt.Errorf("http hook %q: POST %s: read body: %w", h.id, h.display, err)
	}
	res, err := decodeHookOutput(raw)
	if err != nil {
		if errors.Is(err, errEmptyOutput) {
			err = errors.New("empty body: a verdict is required for this event")
		}
		return Result{}, serverAnswered{fmt.Errorf("http hook %q: POST %s: %w", h.id, h.display, err)}
	}
	return res, nil
}

func (h *httpHandler) circuitBreaker() *breaker { return h.breaker }

// Close releases the handler's idle connections.
func (h *httpHandler) Close() error {
	h.transport.CloseIdleConnections()
	return nil
}

func init() {
	registerHandlerKind(&handlerKind{name: "http", rank: 30, keys: []string{"url", "headers", "template"}, breaker: true, build: plainBuild(newHttpHandler)})
}
