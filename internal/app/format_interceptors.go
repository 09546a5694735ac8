package app

import (
	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/providers"
)

// formatInterceptors build the interceptor of each registered format
// that brings no codec, by format name (providers.Format.Name); a format
// with a codec is read by the format-neutral interceptor. A registered
// format with neither is not read: its routes pass through while no hook
// is configured and are refused once one is.
var formatInterceptors = map[string]func(interceptors.Options) interceptors.Interceptor{
	providers.ChatFormat.Name:      func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewChat(o) },
	providers.ResponsesFormat.Name: func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewResponses(o) },
	providers.MessagesFormat.Name:  func(o interceptors.Options) interceptors.Interceptor { return interceptors.NewMessages(o) },
}

// buildInterceptors builds one interceptor per registered format that has
// a builder, by format name, for proxy.Options.Interceptors.
func buildInterceptors(opts interceptors.Options) map[string]interceptors.Interceptor {
	out := map[string]interceptors.Interceptor{}
	for _, f := range providers.Formats() {
		if f.Codec != nil {
			out[f.Name] = interceptors.NewCodec(opts, f.Codec)
		} else if build, ok := formatInterceptors[f.Name]; ok {
			out[f.Name] = build(opts)
		}
	}
	return out
}
