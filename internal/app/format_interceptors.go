package app

import (
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/providers"
)

// formatInterceptors build the interceptor of each registered format
// that brings no codec, by format name (providers.Format.Name); a format
// with a codec is read by the format-neutral interceptor. A format read
// as another (providers.Format.ReadAs) is read by that format's
// interceptor and needs no entry. A registered format with neither is not
// read: its routes pass through while no hook is configured and are
// refused once one is.
var formatInterceptors = map[string]func(interceptors.Options) interceptors.Interceptor{
	providers.ChatFormat.Name:      func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewChat(o) },
	providers.ResponsesFormat.Name: func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewResponses(o) },
	providers.MessagesFormat.Name:  func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewMessages(o) },
}

// buildInterceptors builds the interceptors of the registered formats, by
// format name, for proxy.Options.Interceptors. A format read as another
// shares that format's interceptor, and with it the session memory and
// call clock: one conversation is one session whichever route it takes.
func buildInterceptors(opts interceptors.Options) map[string]interceptors.Interceptor {
	byReader := map[string]interceptors.Interceptor{}
	out := map[string]interceptors.Interceptor{}
	for _, f := range providers.Formats() {
		reader := providers.FormatByName(f.ReadAs)
		if reader == nil {
			continue
		}
		in := byReader[reader.Name]
		if in == nil {
			if reader.Codec != nil {
				in = interceptors.NewCodec(opts, reader.Codec)
			} else if build, ok := formatInterceptors[reader.Name]; ok {
				in = build(opts)
			} else {
				continue
			}
			byReader[reader.Name] = in
		}
		out[f.Name] = in
	}
	return out
}
