package hooks

import (
	"bytes"
	"fmt"
	"text/template"
)

// bodyTemplateFuncs are the functions a `template:` may call.
//
//	json  writes a value as JSON, so strings are quoted and escaped:
//	      {"text": {{json .ToolName}}} is valid JSON whatever the tool name.
var bodyTemplateFuncs = template.FuncMap{
	"json": templateJSON,
}

// templateJSON encodes v as JSON for a template.
func templateJSON(v any) (string, error) {
	b, err := marshalNoEscape(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// parseBodyTemplate compiles an http hook's `template:` once, at load. The
// template runs over the Event (Go field names: .ToolName, .ToolInput,
// .SessionID, ...). A missing map key is an error rather than the text
// "<no value>" sent to a chat channel.
func parseBodyTemplate(id, src string) (*template.Template, error) {
	t, err := template.New(id).Funcs(bodyTemplateFuncs).Option("missingkey=error").Parse(src)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return t, nil
}

// renderBody runs the template over ev.
func renderBody(t *template.Template, ev *Event) ([]byte, error) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, ev); err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return buf.Bytes(), nil
}
