package hooks

import (
	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"github.com/hookgate/hookgate/hooks/shell"
)

// celShellOptions declares shell.commands(string) for if_expr: the
// resolved argv of every command a command line would run (package
// shell: quotes removed, $IFS split, braces and ~ expanded, wrappers
// such as sudo, xargs and `bash -c` looked through), parsed as bash:
//
//	tool.class == 'shell' && shell.commands(tool.command).exists(c, c[0] == 'terraform')
//
// A line that does not parse, or a command name that is not a literal,
// yields no command for it: pair it with the shell_guard built-in, which
// refuses what cannot be judged.
func celShellOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("shell.commands",
			cel.Overload("shell_commands_string", []*cel.Type{cel.StringType}, cel.ListType(cel.ListType(cel.StringType)),
				cel.UnaryBinding(func(v ref.Val) ref.Val {
					src, ok := v.(types.String)
					if !ok {
						return types.NewErr("shell.commands: want a string, got %s", v.Type())
					}
					p := shell.Parse(string(src), shell.Options{})
					out := make([]ref.Val, 0, len(p.Commands))
					for _, c := range p.Commands {
						out = append(out, types.NewStringList(types.DefaultTypeAdapter, c.Argv))
					}
					return types.NewRefValList(types.DefaultTypeAdapter, out)
				}))),
	}
}
