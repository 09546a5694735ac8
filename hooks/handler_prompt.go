package hooks

import "errors"

// newPromptHandler builds a prompt handler. Placeholder until the handler lands.
func newPromptHandler(spec *Spec, deps Deps) (Handler, error) {
	return nil, errors.New("prompt handler not implemented yet")
}
