package interceptors

import "context"

// Begin reads the request and fires the request-side events (the agent
// loop's begin).
func (c *Codec) Begin(ctx context.Context, req *Request) (Exchange, error) {
	return c.loop.begin(ctx, req, c)
}

func (c *Codec) unread(body []byte) Exchange { return &codecExchange{c: c, body: body} }

func (c *Codec) read(req *Request) (loopExchange, error) {
	view, err := c.codec.ParseRequest(req.Route, req.Query, req.Body)
	if err != nil {
		return nil, unreadableBody("hookgate could not read the request body, and its hooks must read it", err)
	}
	return &codecExchange{c: c, body: req.Body, view: view, hooked: true}, nil
}

func (x *codecExchange) state() *exchangeState { return &x.exchangeState }

func (x *codecExchange) speaker() (user, model, system, first string) {
	return x.view.User(), x.view.Model(), x.view.System(), x.view.FirstUserText()
}

// identified names the codec's provider, whatever upstream serves it.
func (x *codecExchange) identified(_ *Request, id *identity) { id.provider = x.c.codec.Provider() }

func (x *codecExchange) turn() *turn        { return x.view.Turn() }
func (x *codecExchange) editor() turnEditor { return x.view }

func (x *codecExchange) block(text string) {
	ct, b := x.view.Answer(text)
	x.reply = &Reply{Status: 200, ContentType: ct, Body: b}
}

func (x *codecExchange) forward(body []byte) error { x.body = body; return nil }
