package app

import (
	"testing"

	"github.com/hookgate/hookgate/interceptors"
	"github.com/hookgate/hookgate/providers"
)

// Every registered format is read: a format registered in providers
// without an interceptor for its codec here would be refused on every
// route once a hook exists, which is safe but not what registering it
// means.
func TestEveryRegisteredFormatHasAnInterceptor(t *testing.T) {
	built := buildInterceptors(interceptors.Options{})
	for _, f := range providers.Formats() {
		if built[f.Name] == nil {
			t.Errorf("format %s has no interceptor for its codec %q (codecInterceptors)", f.Name, f.Codec)
		}
	}
	for codec := range codecInterceptors {
		used := false
		for _, f := range providers.Formats() {
			used = used || f.Codec == codec
		}
		if !used {
			t.Errorf("an interceptor for codec %q, which no registered format uses", codec)
		}
	}
}

// Formats of one codec share one interceptor, and with it its session
// memory: a conversation is one session whichever of the codec's routes
// its requests take. Formats of different codecs never share one.
func TestFormatsOfOneCodecShareTheirInterceptor(t *testing.T) {
	built := buildInterceptors(interceptors.Options{})
	for _, f := range providers.Formats() {
		for _, g := range providers.Formats() {
			same := built[f.Name] == built[g.Name]
			if same != (f.Codec == g.Codec) {
				t.Errorf("formats %s (codec %s) and %s (codec %s): one interceptor is %v", f.Name, f.Codec, g.Name, g.Codec, same)
			}
		}
	}
	if built[providers.AzureChatFormat.Name] != built[providers.ChatFormat.Name] || built[providers.AzureResponsesFormat.Name] != built[providers.ResponsesFormat.Name] {
		t.Error("Azure OpenAI's formats are not read by OpenAI's interceptors")
	}
}
