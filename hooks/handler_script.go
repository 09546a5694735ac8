package hooks

import "errors"

// newScriptHandler builds a script handler. Placeholder until the handler lands.
func newScriptHandler(spec *Spec, deps Deps) (Handler, error) {
	return nil, errors.New("script handler not implemented yet")
}
