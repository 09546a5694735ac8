package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
)

// Formats a command hook can speak.
const (
	formatNative     = ""            // hookgate's camelCase event and Result
	formatClaudeCode = "claude_code" // Claude Code's hook input and output
)

// commandHandler runs an operator's program for each event: argv exactly as
// configured (no shell unless the operator writes one), the event as JSON
// on stdin, a minimal environment. Tool arguments reach the program only on
// stdin, never in argv or the environment.
//
// Exit 0 allows (stdout may carry a verdict), exit 2 blocks with stderr as
// the reason, anything else (another exit code, a signal, junk or a flood
// on stdout) is an error, which the dispatcher fails closed.
type commandHandler struct {
	id     string
	event  EventName
	path   string   // resolved program
	argv   []string // as configured; argv[0] is what the operator wrote
	env    []string // computed once: allow-listed proxy variables + spec env
	dir    string   // working directory: the config's directory, if known
	format string
}

var _ Handler = (*commandHandler)(nil)

// newCommandHandler checks the command at load: a non-empty argv whose
// program resolves to an executable file, a known format, and a valid env.
func newCommandHandler(spec *Spec, deps Deps) (Handler, error) {
	hs := spec.Handler
	if len(hs.Command) == 0 {
		return nil, errors.New("`command:` is empty")
	}
	switch hs.Format {
	case formatNative:
	case formatClaudeCode:
		if _, ok := claudeCodeEventName(spec.Event); !ok {
			return nil, fmt.Errorf("format claude_code has no equivalent of event %q", spec.Event)
		}
	default:
		return nil, fmt.Errorf("unknown format %q (want claude_code or none)", hs.Format)
	}
	env, err := commandEnv(hs.Env)
	if err != nil {
		return nil, err
	}
	path, err := resolveExecutable(hs.Command[0], deps.BaseDir, envValue(env, "PATH"))
	if err != nil {
		return nil, err
	}
	return &commandHandler{
		id:     spec.ID,
		event:  spec.Event,
		path:   path,
		argv:   append([]string(nil), hs.Command...),
		env:    env,
		dir:    deps.BaseDir,
		format: hs.Format,
	}, nil
}

// Handle runs the program once for ev.
func (h *commandHandler) Handle(ctx context.Context, ev *Event) (Result, error) {
	var (
		stdin []byte
		err   error
	)
	if h.format == formatClaudeCode {
		stdin, err = encodeClaudeCodeInput(ev)
	} else {
		stdin, err = encodeEventJSON(ev)
	}
	if err != nil {
		return Result{}, fmt.Errorf("command hook %q: encode event: %w", h.id, err)
	}
	out, err := runProcess(ctx, procSpec{path: h.path, argv: h.argv, env: h.env, dir: h.dir, stdin: stdin})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return Result{}, fmt.Errorf("command hook %q: killed at deadline: %w", h.id, err)
		}
		return Result{}, fmt.Errorf("command hook %q: %w", h.id, err)
	}
	code := out.state.ExitCode()
	if h.format == formatClaudeCode {
		res, err := decodeClaudeCodeOutput(ev, code, out.stdout, out.stderr)
		if err != nil {
			return Result{}, fmt.Errorf("command hook %q (claude_code, %s): %w", h.id, describeExit(out.state), err)
		}
		return res, nil
	}
	switch code {
	case 0:
		if len(bytes.TrimSpace(out.stdout)) == 0 {
			return Result{Decision: Allow}, nil
		}
		res, err := decodeHookOutput(out.stdout)
		if err != nil {
			return Result{}, fmt.Errorf("command hook %q: stdout: %w", h.id, err)
		}
		return res, nil
	case 2:
		return Result{Decision: Block, Reason: stderrReason(out.stderr, h.id)}, nil
	default:
		return Result{}, fmt.Errorf("command hook %q: %s%s", h.id, describeExit(out.state), stderrSuffix(out.stderr))
	}
}

// stderrReason is the block reason of an exit-2 hook: its stderr, or a
// generic reason naming the hook when it wrote none.
func stderrReason(stderr []byte, id string) string {
	if r := string(bytes.TrimSpace(stderr)); r != "" {
		return r
	}
	return fmt.Sprintf("blocked by command hook %q (exit 2)", id)
}

// stderrSuffix appends the start of stderr to an error message.
func stderrSuffix(stderr []byte) string {
	s := bytes.TrimSpace(stderr)
	if len(s) == 0 {
		return ""
	}
	return ": " + excerpt(s, 512)
}

func init() {
	registerHandlerKind(&handlerKind{name: "command", rank: 20, keys: []string{"command", "env", "format"}, build: plainBuild(newCommandHandler)})
}
