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
			t.Errorf("format %s (read as %s) has no interceptor (formatInterceptors)", f.Name, f.ReadAs)
		}
	}
	for name := range formatInterceptors {
		if providers.FormatByName(name) == nil {
			t.Errorf("an interceptor for %q, which is no registered format", name)
		}
	}
}

// A format read as another shares that format's interceptor, and with it
// its session memory: a conversation is one session whichever of the
// routes its requests take. Formats read differently never share one.
func TestFormatsReadAsAnotherShareItsInterceptor(t *testing.T) {
	built := buildInterceptors(interceptors.Options{})
	for _, f := range providers.Formats() {
		for _, g := range providers.Formats() {
			same := built[f.Name] == built[g.Name]
			if same != (f.ReadAs == g.ReadAs) {
				t.Errorf("formats %s (read as %s) and %s (read as %s): one interceptor is %v", f.Name, f.ReadAs, g.Name, g.ReadAs, same)
			}
		}
	}
	if built[providers.AzureChatFormat.Name] != built[providers.ChatFormat.Name] || built[providers.AzureResponsesFormat.Name] != built[providers.ResponsesFormat.Name] {
		t.Error("Azure OpenAI's formats are not read by OpenAI's interceptors")
	}
}
