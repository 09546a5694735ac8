package channels

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hookgate/hookgate/config"
)

// Option adjusts how channels are built.
type Option func(*options)

type options struct {
	client *http.Client
	now    func() time.Time
}

// withClock makes channels read the time from now (signing, freshness,
// token expiry) instead of time.Now.
func withClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

func buildOptions(opts []Option) options {
	var o options
	for _, fn := range opts {
		fn(&o)
	}
	if o.client == nil {
		o.client = newClient()
	}
	if o.now == nil {
		o.now = time.Now
	}
	return o
}

// buildChannel builds one channel from its configuration, as New does for
// each (the tests build them one at a time).
func buildChannel(c config.Channel, opts ...Option) (Channel, error) {
	return newChannel(c, buildOptions(opts))
}

// newChannel builds one channel from its configuration, whose secrets the
// config package has already resolved. It checks what sending needs (a
// URL, a token, an app id, a conversation); what callbacks need is checked
// when one arrives, so a channel used only for messages needs no signing
// secret.
func newChannel(c config.Channel, o options) (Channel, error) {
	if c.Name == "" {
		return nil, errors.New("channel has no name")
	}
	var (
		ch  Channel
		err error
	)
	switch c.Type {
	case KindWebhook:
		ch, err = newWebhook(c, o)
	case KindSlack:
		ch, err = newSlack(c, o)
	case KindFeishu:
		ch, err = newFeishu(c, o)
	default:
		return nil, fmt.Errorf("channel %q: type %q is not webhook, slack or feishu", c.Name, c.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("channel %q: %w", c.Name, err)
	}
	return ch, nil
}

// New builds every configured channel, keyed by name. The channels share
// one HTTP client (and so one connection pool). It reports every problem at
// once; on error it returns no channels.
func New(cfgs []config.Channel, opts ...Option) (map[string]Channel, error) {
	o := buildOptions(opts)
	out := make(map[string]Channel, len(cfgs))
	var errs []error
	for _, c := range cfgs {
		if _, dup := out[c.Name]; dup {
			errs = append(errs, fmt.Errorf("channel %q: duplicate name", c.Name))
			continue
		}
		ch, err := newChannel(c, o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[c.Name] = ch
	}
	if len(errs) > 0 {
		for _, ch := range out {
			ch.Close()
		}
		return nil, errors.Join(errs...)
	}
	return out, nil
}
