//go:build !unix

package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Command hooks need process groups to be killed as a whole at their
// deadline; without them a hook could outlive its timeout, so they are not
// offered at all.
const (
	maxCommandStdout = 1 << 20
	maxCommandStderr = 64 << 10
)

var errStdoutTooLarge = fmt.Errorf("stdout exceeded %d bytes", maxCommandStdout)

type procSpec struct {
	path  string
	argv  []string
	env   []string
	dir   string
	stdin []byte
}

type procOutput struct {
	stdout []byte
	stderr []byte
	state  *os.ProcessState
}

func runProcess(ctx context.Context, p procSpec) (procOutput, error) {
	return procOutput{}, errors.New("command hooks are supported on unix only")
}

func describeExit(state *os.ProcessState) string {
	if state == nil {
		return "did not run"
	}
	return fmt.Sprintf("exit status %d", state.ExitCode())
}
