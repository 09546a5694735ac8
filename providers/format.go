package providers

import (
	"fmt"
	"strings"
)

// Format describes one wire format hookgate reads: what the proxy, the
// configuration and the wiring need to know of it, held in one place.
// Each format registers itself once (format_<name>.go); proxy, config and
// internal/app read the registry (Formats, FormatByName, Providers)
// instead of naming formats.
type Format struct {
	// Name identifies the format to the wiring: internal/app builds one
	// interceptor per name, and the proxy finds it by this name.
	Name string
	// Provider is the upstreams' provider that serves the format, as an
	// upstream's provider setting spells it.
	Provider string
	// Routes are the requests the format is read on, as patterns (Route).
	// Only a POST to one of them is read.
	Routes []Route
	// Auth is how the provider carries an upstream credential hookgate
	// swaps in for the client's.
	Auth Auth
	// Error renders an error hookgate answers on the format's routes in
	// the API's own shape, which its SDKs parse into their error types.
	Error ErrorShape
	// MetricLabel is the value of the route label of the proxy's metrics
	// for every request to one of Routes.
	MetricLabel string
	// ClientHeaders are request headers only this provider's clients
	// send (anthropic-version): a request carrying one goes to the
	// provider's upstream by default and is refused in its error shape.
	ClientHeaders []string
	// RefusalScope are path prefixes, in lower case, under which a
	// refused request is answered in Error's shape: the format's routes
	// and the provider's other generation routes beside them.
	RefusalScope []string
	// Codec, when set, reads the format for hookgate's format-neutral
	// interceptor (interceptors.NewCodec): a format with a codec needs no
	// interceptor of its own.
	Codec Codec
}

// Auth is the header that carries an upstream credential: Header with the
// value Prefix + key ("Authorization: Bearer <key>", "x-api-key: <key>").
type Auth struct {
	Header string
	Prefix string
}

// Value is the header value that carries key.
func (a Auth) Value(key string) string { return a.Prefix + key }

// ErrorShape renders an error body from the HTTP status, the OpenAI-style
// type and code, and the message. A shape without a type or code of its
// own folds them into what it has (Anthropic's leads the message with the
// code).
type ErrorShape func(status int, typ, code, message string) []byte

// OpenAIErrorShape is OpenAI's {"error":{"message","type","code"}}.
func OpenAIErrorShape(_ int, typ, code, message string) []byte {
	return ErrorBody(message, typ, code)
}

// AnthropicErrorShape is Anthropic's {"type":"error","error":{"type",
// "message"}}, the type following the status as the API's does, the
// message led by hookgate's code.
func AnthropicErrorShape(status int, _, code, message string) []byte {
	if code != "" {
		message = code + ": " + message
	}
	return MessagesErrorBody(MessagesErrorType(status), message)
}

// DefaultProvider serves a request that names no provider by its route or
// headers, and is an upstream's provider when its configuration leaves it
// out.
const DefaultProvider = "openai"

// formats are the registered formats in registration order (the order
// of the format_*.go files).
var formats []*Format

// register adds f to the registry (NewFormat). A bad pattern or a second
// format of one name is a mistake in this package, found by any test
// that loads it.
func register(f Format) *Format {
	p, err := NewFormat(f)
	if err != nil {
		panic(err.Error())
	}
	for _, g := range formats {
		if g.Name == p.Name {
			panic("providers: format " + p.Name + " registered twice")
		}
	}
	formats = append(formats, p)
	return p
}

// NewFormat checks a descriptor and compiles its route patterns, without
// registering it (register does, for the formats of this package; tests
// build formats of their own with it).
func NewFormat(f Format) (*Format, error) {
	if f.Name == "" || f.Provider == "" || f.Error == nil || f.MetricLabel == "" || f.Auth.Header == "" || len(f.Routes) == 0 {
		return nil, fmt.Errorf("providers: format %q is missing a part", f.Name)
	}
	f.Routes = append([]Route(nil), f.Routes...)
	for i := range f.Routes {
		if err := f.Routes[i].compile(); err != nil {
			return nil, fmt.Errorf("providers: format %s: %w", f.Name, err)
		}
	}
	return &f, nil
}

// Formats are every registered format, in registration order. The slice
// is shared: do not modify it.
func Formats() []*Format { return formats }

// FormatByName is the registered format of that name, or nil.
func FormatByName(name string) *Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Providers are the providers of the registered formats, each once, in
// registration order.
func Providers() []string {
	var out []string
	for _, f := range formats {
		if !containsString(out, f.Provider) {
			out = append(out, f.Provider)
		}
	}
	return out
}

// KnownProvider reports whether some registered format is served by
// provider.
func KnownProvider(provider string) bool {
	return ProviderFormat(provider) != nil
}

// ProviderFormat is the first registered format of provider, or nil: its
// Auth and Error are the provider's.
func ProviderFormat(provider string) *Format {
	for _, f := range formats {
		if f.Provider == provider {
			return f
		}
	}
	return nil
}

// InRefusalScope reports whether a path, in lower case, is or is under
// one of the format's RefusalScope prefixes.
func (f *Format) InRefusalScope(lowerPath string) bool {
	for _, p := range f.RefusalScope {
		if lowerPath == p || strings.HasPrefix(lowerPath, p+"/") {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
