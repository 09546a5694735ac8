package app

import (
	"testing"

	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/providers"
)

// Every registered format is read: a format registered in providers
// without an interceptor here would be refused on every route once a hook
// exists, which is safe but not what registering it means.
func TestEveryRegisteredFormatHasAnInterceptor(t *testing.T) {
	built := buildInterceptors(interceptors.Options{})
	for _, f := range providers.Formats() {
		if built[f.Name] == nil {
			t.Errorf("format %s has no interceptor (formatInterceptors)", f.Name)
		}
	}
	for name := range formatInterceptors {
		if providers.FormatByName(name) == nil {
			t.Errorf("an interceptor for %q, which is no registered format", name)
		}
	}
}
