package hooks

import (
	"encoding/json"

	"github.com/dop251/goja"

	"github.com/hookgate/hookgate/hooks/shell"
)

// installShell gives scripts `shell.commands(text)`, the resolved argv of
// every command a command line would run, as CEL's shell.commands does
// (package shell, bash dialect):
//
//	shell.commands(e.tool.command).some(c => c[0] === 'terraform')
//
// It is installed before the sandbox deep-freezes the global object, and
// returns plain arrays made by the sandbox's own JSON.parse (the host's
// parse, captured before any script ran), so a script gets nothing that
// reaches back into Go. A non-string argument is a TypeError.
func installShell(rt *goja.Runtime, sb *sandbox) error {
	obj := rt.NewObject()
	err := obj.Set("commands", func(call goja.FunctionCall) goja.Value {
		arg := call.Argument(0)
		if _, ok := arg.Export().(string); !ok {
			panic(rt.NewTypeError("shell.commands: want a string"))
		}
		parsed := shell.Parse(arg.String(), shell.Options{})
		argvs := make([][]string, 0, len(parsed.Commands))
		for _, c := range parsed.Commands {
			if len(c.Argv) > 0 {
				argvs = append(argvs, c.Argv)
			}
		}
		raw, err := json.Marshal(argvs)
		if err != nil {
			panic(rt.NewGoError(err))
		}
		v, err := sb.parse(goja.Undefined(), rt.ToValue(string(raw)))
		if err != nil {
			panic(err)
		}
		return v
	})
	if err != nil {
		return err
	}
	return rt.Set("shell", obj)
}
