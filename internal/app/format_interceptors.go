package app

import (
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/providers"
)

// codecInterceptors build the interceptor of each codec
// (providers.Format.Codec). Every registered format of a codec is read by
// that codec's one interceptor, so a format that reuses a codec (another
// provider's routes for OpenAI's chat completions) is a registration in
// providers and nothing here. A registered format whose codec has no
// entry is not read: its routes pass through while no hook is configured
// and are refused once one is.
var codecInterceptors = map[string]func(interceptors.Options) interceptors.Interceptor{
	providers.ChatFormat.Codec:      func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewChat(o) },
	providers.ResponsesFormat.Codec: func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewResponses(o) },
	providers.MessagesFormat.Codec:  func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewMessages(o) },
}

// buildInterceptors builds one interceptor per codec that registered
// formats use and that has a builder, and hands it every such format by
// name, for proxy.Options.Interceptors. Formats of one codec share its
// interceptor, and with it the session memory and call clock.
func buildInterceptors(opts interceptors.Options) map[string]interceptors.Interceptor {
	byCodec := map[string]interceptors.Interceptor{}
	out := map[string]interceptors.Interceptor{}
	for _, f := range providers.Formats() {
		build, ok := codecInterceptors[f.Codec]
		if !ok {
			continue
		}
		in := byCodec[f.Codec]
		if in == nil {
			in = build(opts)
			byCodec[f.Codec] = in
		}
		out[f.Name] = in
	}
	return out
}
