package interceptors

import (
	"context"
	"io"

	"github.com/tidwall/gjson"
)

// ChatOptions configure the chat-completions interceptor.
type ChatOptions struct {
	// MaxEventBytes caps one SSE event; MaxStreamBytes a whole stream.
	MaxEventBytes  int
	MaxStreamBytes int64
	// ParseRequests makes Begin read the request body, answering a 400
	// when hooks must read it and cannot. Without hooks the body passes
	// unread.
	ParseRequests bool
}

// Chat reads OpenAI chat-completions traffic (/v1/chat/completions).
type Chat struct {
	opts ChatOptions
}

var _ Interceptor = (*Chat)(nil)

// NewChat returns the chat-completions interceptor.
func NewChat(opts ChatOptions) *Chat { return &Chat{opts: opts} }

// Begin reads the request.
func (c *Chat) Begin(ctx context.Context, req *Request) (Exchange, error) {
	if c.opts.ParseRequests && !gjson.ValidBytes(req.Body) {
		return nil, &RequestError{Status: 400, Type: "invalid_request_error", Code: "invalid_json",
			Message: "hookgate could not parse the request body as JSON, and its hooks must read it"}
	}
	return &chatExchange{chat: c, body: req.Body}, nil
}

// chatExchange is one chat-completions request and its response.
type chatExchange struct {
	chat *Chat
	body []byte
}

func (x *chatExchange) Body() []byte  { return x.body }
func (x *chatExchange) Reply() *Reply { return nil }

func (x *chatExchange) RelayStream(ctx context.Context, upstream io.Reader, client Sink) error {
	r := newStreamRelay(x.chat.opts.MaxEventBytes, x.chat.opts.MaxStreamBytes, chatStreamEnds)
	return r.run(ctx, upstream, client, nil)
}

func (x *chatExchange) FinishPlain(ctx context.Context, body []byte) ([]byte, error) {
	return body, nil
}
