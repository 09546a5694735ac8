package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/hookgate/hookgate/hooks"
)

// InjectContextName is the registry name of the inject_context built-in.
const InjectContextName = "inject_context"

// maxContextBytes bounds the text inject_context adds to every session:
// a file or a rendered template longer than this is refused.
const maxContextBytes = 256 << 10

// contextParams are inject_context's `with:` parameters; exactly one of
// them is set.
//
//	with:
//	  text: "You work for ACME. Never touch production."
//	  # or
//	  file: context/acme.md          # relative to the config's directory (a tenant's: to, and inside, its hooks file's folder); read at load
//	  # or
//	  template: "Tenant {{.tenant}}, agent {{.agent}}, today is {{.date}} (session {{.session}})."
type contextParams struct {
	Text     string `json:"text"`
	File     string `json:"file"`
	Template string `json:"template"`
}

// injectContext contributes a fixed text, or a template rendered per
// session.
type injectContext struct {
	text string             // fixed text (text or file)
	tmpl *template.Template // or a template
	now  func() time.Time
}

// NewInjectContext is the factory of inject_context. It accepts
// session_start hooks only. A file is read here, once: a change to it is
// taken up by the next configuration reload.
func NewInjectContext(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if err := onlyOn(InjectContextName, cfg, hooks.SessionStart, "adds context at the start of a session"); err != nil {
		return nil, err
	}
	var p contextParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	set := 0
	for _, v := range []string{p.Text, p.File, p.Template} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return nil, errors.New("with: set exactly one of text, file and template")
	}
	if p.File == "" && strings.TrimSpace(p.Text+p.Template) == "" {
		return nil, errors.New("with: the text is blank")
	}
	h := &injectContext{now: time.Now}
	switch {
	case p.Text != "":
		if len(p.Text) > maxContextBytes {
			return nil, fmt.Errorf("with.text is larger than %d bytes", maxContextBytes)
		}
		if _, err := checkContextText("with.text", p.Text); err != nil {
			return nil, err
		}
		h.text = p.Text
	case p.File != "":
		text, err := readContextFile(cfg.Deps.BaseDir, p.File, cfg.Trusted)
		if err != nil {
			return nil, fmt.Errorf("with.file: %w", err)
		}
		h.text = text
	default:
		t, err := template.New(cfg.HookID).Option("missingkey=error").Parse(p.Template)
		if err != nil {
			return nil, fmt.Errorf("with.template: %w", err)
		}
		h.tmpl = t
		// Render once with sample values so that a misspelt field
		// ({{.tenat}}) fails the load, not the first session.
		if _, err := h.render(&hooks.Event{Tenant: "t", Agent: "a", SessionID: "s"}); err != nil {
			return nil, fmt.Errorf("with.template: %w", err)
		}
	}
	return h, nil
}

// readContextFile reads a context file relative to base. An untrusted
// (tenant) hook's file must stay inside base, symbolic links included,
// read through the helper every tenant path goes through: a tenant must
// not have the proxy read it the host's files. (The config package reads
// a tenant's files from its own folder and hands the text over, so this
// branch is the second line, for entries compiled without it.)
func readContextFile(base, name string, trusted bool) (string, error) {
	var (
		b   []byte
		err error
	)
	if trusted {
		if !filepath.IsAbs(name) {
			name = filepath.Join(base, name)
		}
		b, err = readAtMost(name, maxContextBytes)
	} else {
		if base == "" {
			base = "."
		}
		b, err = hooks.ReadConfinedFile(base, name, maxContextBytes)
	}
	if err != nil {
		return "", err
	}
	return checkContextText(name, string(b))
}

// readAtMost reads an operator's file, refusing one past max bytes.
func readAtMost(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, max)
	}
	return b, nil
}

// checkContextText refuses a context that is not UTF-8 text or is blank.
func checkContextText(name, text string) (string, error) {
	switch {
	case !utf8.ValidString(text):
		return "", fmt.Errorf("%s is not UTF-8 text", name)
	case strings.TrimSpace(text) == "":
		return "", fmt.Errorf("%s is empty", name)
	}
	return text, nil
}

// Handle returns the context to inject.
func (h *injectContext) Handle(_ context.Context, ev *hooks.Event) (hooks.Result, error) {
	if h.tmpl == nil {
		return hooks.Result{Decision: hooks.Allow, AdditionalContext: h.text}, nil
	}
	text, err := h.render(ev)
	if err != nil {
		return hooks.Result{}, fmt.Errorf("inject_context: %w", err)
	}
	return hooks.Result{Decision: hooks.Allow, AdditionalContext: text}, nil
}

// render executes the template over the event's tenant, agent and session
// and today's date (UTC).
func (h *injectContext) render(ev *hooks.Event) (string, error) {
	data := map[string]string{
		"tenant":  ev.Tenant,
		"agent":   ev.Agent,
		"session": ev.SessionID,
		"date":    h.now().UTC().Format(time.DateOnly),
	}
	var b strings.Builder
	if err := h.tmpl.Execute(&limitedWriter{w: &b, n: maxContextBytes}, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// limitedWriter refuses writes past n bytes.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, fmt.Errorf("rendered context exceeds %d bytes", maxContextBytes)
	}
	l.n -= len(p)
	return l.w.Write(p)
}
