package oracle

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/fixtures"
)

// geminiForm is one of the three shapes a Gemini answer reaches a client
// in.
type geminiForm int

const (
	geminiSSE   geminiForm = iota // streamGenerateContent?alt=sse, CRLF blocks
	geminiPlain                   // generateContent, one GenerateContentResponse
	geminiArray                   // streamGenerateContent without alt: one JSON array
)

var geminiFormNames = map[geminiForm]string{geminiSSE: "gemini-sse", geminiPlain: "gemini-plain", geminiArray: "gemini-array"}

func (f geminiForm) String() string { return geminiFormNames[f] }

// path is the request path of the form for model, query included.
func (f geminiForm) path(model string) string {
	switch f {
	case geminiSSE:
		return "/v1beta/models/" + model + ":streamGenerateContent?alt=sse"
	case geminiArray:
		return "/v1beta/models/" + model + ":streamGenerateContent"
	}
	return "/v1beta/models/" + model + ":generateContent"
}

// geminiSample is one recording in one form: its frames (the JSON of each
// GenerateContentResponse, in order).
type geminiSample struct {
	rel    string
	form   geminiForm
	frames []string
}

// loadGeminiSamples reads every recorded stream and gives each in the
// three forms: the stream as recorded, its frame with the calls as a whole
// generateContent body, and its frames as one JSON array.
func loadGeminiSamples(t testing.TB) []geminiSample {
	t.Helper()
	dir := filepath.Join(fixtures.Dir(t), "gemini-native")
	paths, err := filepath.Glob(filepath.Join(dir, "*.sse"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Gemini recording in %s (%v)", dir, err)
	}
	sort.Strings(paths)
	var out []geminiSample
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel := "gemini-native/" + filepath.Base(p)
		var frames []string
		call := ""
		for _, blk := range strings.Split(string(b), "\r\n\r\n") {
			data, ok := strings.CutPrefix(blk, "data: ")
			if !ok {
				continue
			}
			frames = append(frames, data)
			if call == "" && strings.Contains(data, `"functionCall"`) {
				call = data
			}
		}
		if call == "" {
			t.Fatalf("%s: no frame with a functionCall", rel)
		}
		out = append(out,
			geminiSample{rel: rel, form: geminiSSE, frames: frames},
			geminiSample{rel: rel, form: geminiPlain, frames: []string{call}},
			geminiSample{rel: rel, form: geminiArray, frames: frames})
	}
	return out
}

// geminiMutant is what the mock answers: frames edited by the JSON
// classes, rendered in the form, then edited as bytes by the framing
// classes (post, in order).
type geminiMutant struct {
	form   geminiForm
	frames []string
	post   []func([]byte) []byte
	status int
	// contentType replaces the form's (the mock sends text/event-stream
	// for both streams, application/json for a plain body).
	contentType string
}

func newGeminiMutant(s geminiSample) *geminiMutant {
	return &geminiMutant{form: s.form, frames: append([]string(nil), s.frames...)}
}

// body renders the mutant.
func (m *geminiMutant) body() []byte {
	var b []byte
	switch m.form {
	case geminiSSE:
		for _, f := range m.frames {
			b = append(b, "data: "...)
			b = append(b, f...)
			b = append(b, "\r\n\r\n"...)
		}
	case geminiArray:
		b = append(b, '[')
		for i, f := range m.frames {
			if i > 0 {
				b = append(b, ",\r\n"...)
			}
			b = append(b, f...)
		}
		b = append(b, ']')
	default:
		b = append(b, strings.Join(m.frames, "")...)
	}
	for _, fn := range m.post {
		b = fn(b)
	}
	return b
}

// callFrames are the indexes of the frames that carry a call, however
// spelt.
func (m *geminiMutant) callFrames() []int {
	var out []int
	for i, f := range m.frames {
		l := strings.ToLower(f)
		if strings.Contains(l, "functioncall") || strings.Contains(l, "function_call") {
			out = append(out, i)
		}
	}
	return out
}

// editCallFrames applies fn to every frame that carries a call, or to one,
// as p says.
func (m *geminiMutant) editCallFrames(p *params, fn func(d string) (string, bool)) bool {
	targets := m.callFrames()
	if len(targets) == 0 {
		return false
	}
	if one := p.pick(len(targets) + 1); one > 0 {
		targets = targets[one-1 : one]
	}
	changed := false
	for _, i := range targets {
		if d, ok := fn(m.frames[i]); ok {
			m.frames[i] = d
			changed = true
		}
	}
	return changed
}
