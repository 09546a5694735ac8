package hooks

import "errors"

// newHttpHandler builds a http handler. Placeholder until the handler lands.
func newHttpHandler(spec *Spec, deps Deps) (Handler, error) {
	return nil, errors.New("http handler not implemented yet")
}
