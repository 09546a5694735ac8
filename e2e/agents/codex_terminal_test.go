//go:build agents

package agents

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/internal/mockupstream"
)

// Codex can run a command without naming it in exec_command: it opens an
// interactive shell (exec_command {"cmd":"bash","tty":true}) and types into
// it with write_stdin {session_id, chars}. The script types the recursive
// delete in two parts, "rm -" and "r precious\n", so that neither call's
// own characters look like a delete: only a shell-class hook, which judges
// the line a write_stdin call completes (what the terminal already holds
// and what the call types), sees "rm -r precious" and blocks it.

// terminalParts is the destructive command as the script types it.
var terminalParts = []string{"rm -", "r precious\n"}

// terminalPolicy judges every shell-class call's normalised command for a
// recursive delete, without the strict set's interactive-shell rule, which
// would block the shell before anything is typed into it (see
// TestCodexTerminalStrictSetRefusesTheShell).
var terminalPolicy = strings.Replace(suitePolicy, "defaults: [shell, recursive_delete]",
	`patterns: [{label: recursive-delete, regex: "\\brm\\s+-[A-Za-z]*[rR]"}]`, 1)

// terminalRun is a run whose model plays the terminal script.
func terminalRun(t *testing.T, policy string) (*run, *mockupstream.TerminalScript) {
	t.Helper()
	r := newRunWithPolicy(t, policy)
	s := &mockupstream.TerminalScript{Allowed: allowedCommand, Shell: "bash", Typed: terminalParts, Final: finalAnswer}
	r.Mock.Handle(s.Handler())
	return r, s
}

// assertTyped checks that the model got as far as asking for every part
// to be typed into a running terminal session: a run that never reached
// the delete would pass the gate's checks without testing anything.
func assertTyped(t *testing.T, s *mockupstream.TerminalScript) {
	t.Helper()
	if errs := s.Errors(); len(errs) > 0 {
		t.Errorf("the terminal script could not go on: %v", errs)
	}
	served := s.Served()
	for i := range terminalParts {
		if want := "typed " + strconv.Itoa(i); !slices.Contains(served, want) {
			t.Errorf("the model never asked for part %d of the command to be typed (steps served: %v)", i, served)
		}
	}
}

// Through hookgate, the line the second write_stdin completes is judged
// whole and blocked; the user sees the note and the disclaimer.
func TestCodexTerminalThroughGate(t *testing.T) {
	if terminalPolicy == suitePolicy {
		t.Fatal("terminalPolicy did not replace the strict set")
	}
	r, s := terminalRun(t, terminalPolicy)
	out := codex(t, r, r.Gate)
	assertTyped(t, s)
	assertThroughGate(t, r, out.LastMessage)
}

// Straight against the model, the typed delete runs.
func TestCodexTerminalDirect(t *testing.T) {
	r, s := terminalRun(t, terminalPolicy)
	out := codex(t, r, r.Direct)
	assertTyped(t, s)
	assertDirect(t, r, out.LastMessage)
}

// The suite's policy, with the shipped strict set, refuses the terminal
// itself: exec_command starting an interactive shell is blocked, so
// nothing is typed, and the user sees why.
func TestCodexTerminalStrictSetRefusesTheShell(t *testing.T) {
	r, s := terminalRun(t, suitePolicy)
	out := codex(t, r, r.Gate)
	if slices.Contains(s.Served(), "typed 0") {
		t.Errorf("the model was asked to type into a shell the strict set should have refused (steps served: %v)", s.Served())
	}
	assertThroughGate(t, r, out.LastMessage)
	if !strings.Contains(out.LastMessage, "interactive-shell") {
		t.Errorf("the block note does not name the interactive-shell rule: %q", out.LastMessage)
	}
}
