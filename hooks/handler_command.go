package hooks

import "errors"

// newCommandHandler builds a command handler. Placeholder until the handler lands.
func newCommandHandler(spec *Spec, deps Deps) (Handler, error) {
	return nil, errors.New("command handler not implemented yet")
}
