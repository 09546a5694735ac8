package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// promptHandler asks an OpenAI-compatible model (the judge) to decide: the
// operator's instruction as system text, the event JSON as the user
// message, and a strict JSON verdict {"decision", "reason"} back. Prose, a
// missing field, an unknown decision, a refusal, a truncated answer or the
// timeout is an error, which the dispatcher fails closed.
//
// The endpoint comes from the wiring (Deps.Judges, from the operator's
// upstreams), never from a request; its key is sent only in the
// Authorization header and scrubbed from every error.
type promptHandler struct {
	id        string
	model     string
	system    string
	key       string // only to scrub it from errors
	display   string
	transport *http.Transport
	client    *openai.Client
	breaker   *breaker // nil: disabled
}

var (
	_ Handler   = (*promptHandler)(nil)
	_ Closer    = (*promptHandler)(nil)
	_ breakered = (*promptHandler)(nil)
)

// newPromptHandler checks instruction, model and judge endpoint at load.
func newPromptHandler(spec *Spec, deps Deps) (Handler, error) {
	hs := spec.Handler
	if strings.TrimSpace(hs.Instruction) == "" {
		return nil, errors.New("`instruction:` is empty")
	}
	if hs.Model == "" {
		return nil, errors.New("`model:` is empty")
	}
	if hs.Format != "" {
		return nil, fmt.Errorf("format %q applies to command hooks only", hs.Format)
	}
	judge, ok := deps.Judges[hs.Upstream]
	if !ok {
		if hs.Upstream == "" {
			return nil, errors.New("no default judge endpoint configured")
		}
		return nil, fmt.Errorf("no judge endpoint for upstream %q", hs.Upstream)
	}
	u, err := parseHookURL(judge.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("judge %w", err)
	}
	b, err := newBreaker(spec, deps.Logger)
	if err != nil {
		return nil, err
	}
	transport := newHookTransport()
	cfg := openai.DefaultConfig(judge.APIKey)
	cfg.BaseURL = strings.TrimRight(u.String(), "/")
	cfg.HTTPClient = newHookClient(judgeTransport{next: transport})
	return &promptHandler{
		id:        spec.ID,
		model:     hs.Model,
		system:    strings.TrimSpace(hs.Instruction) + verdictFormat,
		key:       judge.APIKey,
		display:   displayURL(u),
		transport: transport,
		client:    openai.NewClientWithConfig(cfg),
		breaker:   b,
	}, nil
}

// Handle asks the judge about ev, through the hook's breaker.
func (h *promptHandler) Handle(ctx context.Context, ev *Event) (Result, error) {
	evJSON, err := encodeEventJSON(ev)
	if err != nil {
		return Result{}, fmt.Errorf("prompt hook %q: encode event: %w", h.id, err)
	}
	res, err := h.breaker.do(ctx, func() (Result, error) { return h.ask(ctx, evJSON) })
	if errors.Is(err, ErrBreakerOpen) {
		return Result{}, fmt.Errorf("prompt hook %q: judge %s: %w", h.id, h.display, err)
	}
	return res, err
}

// ask sends the event to the judge and validates its verdict.
func (h *promptHandler) ask(ctx context.Context, evJSON []byte) (Result, error) {
	resp, err := h.client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: h.model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: h.system},
			{Role: openai.ChatMessageRoleUser, Content: string(evJSON)},
		},
		// JSON mode keeps models from wrapping the verdict in prose; the
		// answer is validated strictly all the same.
		ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject},
	})
	if err != nil {
		status, answered := judgeStatus(err)
		err = fmt.Errorf("prompt hook %q: judge %s: %w", h.id, h.display, h.scrub(err))
		if answered && !unavailable(status) {
			return Result{}, serverAnswered{err}
		}
		return Result{}, err
	}
	if len(resp.Choices) == 0 {
		return Result{}, serverAnswered{fmt.Errorf("prompt hook %q: judge %s answered no choices", h.id, h.display)}
	}
	choice := resp.Choices[0]
	if choice.Message.Refusal != "" {
		return Result{}, serverAnswered{fmt.Errorf("prompt hook %q: judge refused: %s", h.id, h.scrubText(excerpt([]byte(choice.Message.Refusal), 200)))}
	}
	if choice.FinishReason == openai.FinishReasonLength {
		return Result{}, serverAnswered{fmt.Errorf("prompt hook %q: judge verdict cut off (finish_reason length)", h.id)}
	}
	res, err := parseVerdict(choice.Message.Content)
	if err != nil {
		return Result{}, serverAnswered{fmt.Errorf("prompt hook %q: %w", h.id, h.scrub(err))}
	}
	return res, nil
}

func (h *promptHandler) circuitBreaker() *breaker { return h.breaker }

// Close releases the handler's idle connections.
func (h *promptHandler) Close() error {
	h.transport.CloseIdleConnections()
	return nil
}

// judgeStatus is the HTTP status of a judge's error answer, when the judge
// answered at all (the client library reports a status it got as an
// APIError or a RequestError).
func judgeStatus(err error) (int, bool) {
	if apiErr, ok := errors.AsType[*openai.APIError](err); ok && apiErr.HTTPStatusCode > 0 {
		return apiErr.HTTPStatusCode, true
	}
	if reqErr, ok := errors.AsType[*openai.RequestError](err); ok && reqErr.HTTPStatusCode > 0 {
		return reqErr.HTTPStatusCode, true
	}
	return 0, false
}

// scrubbedError carries a message with the key and URL removed. It unwraps
// only to the causes callers act on (the context's, a body too large), not
// to the client library's error, whose text could quote the key.
type scrubbedError struct {
	msg   string
	cause error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.cause }

// scrub turns err into a scrubbedError.
func (h *promptHandler) scrub(err error) error {
	var cause error
	for _, known := range []error{context.DeadlineExceeded, context.Canceled, errBodyTooLarge, errJudgeRedirect} {
		if errors.Is(err, known) {
			cause = known
			break
		}
	}
	return &scrubbedError{msg: h.scrubText(redactURLError(err).Error()), cause: cause}
}

// scrubText removes the key from s. A server that echoes the key in an
// error body must not get it into hookgate's logs or audit rows.
func (h *promptHandler) scrubText(s string) string {
	if h.key == "" {
		return s
	}
	return strings.ReplaceAll(s, h.key, "[redacted]")
}

// errJudgeRedirect reports a judge that answered with a redirect. The
// client library takes any status below 400 for success, so the refusal to
// follow it is made here, before the body is read as a completion.
var errJudgeRedirect = errors.New("judge answered with a redirect; redirects are not followed")

// judgeTransport caps the judge's response body and turns a 3xx into an
// error.
type judgeTransport struct{ next http.RoundTripper }

func (t judgeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		discardBody(resp.Body)
		return nil, fmt.Errorf("status %d: %w", resp.StatusCode, errJudgeRedirect)
	}
	resp.Body = &cappedBody{rc: resp.Body, left: maxHookResponseBody}
	return resp, nil
}

// cappedBody fails a read past its limit instead of buffering without end.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a larger one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, errBodyTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

func init() {
	registerHandlerKind(&handlerKind{name: "prompt", rank: 40, keys: []string{"instruction", "model", "upstream"}, breaker: true, build: plainBuild(newPromptHandler)})
}
