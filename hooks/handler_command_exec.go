//go:build unix

package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Output limits of a command hook. A verdict is a few hundred bytes; a
// hook that writes more than this is broken (or hostile), and its output is
// an error rather than a memory blow-up.
const (
	maxCommandStdout = 1 << 20  // 1 MiB: more is an error
	maxCommandStderr = 64 << 10 // 64 KiB: more is cut off
)

// pipeGrace bounds how long output is still read after the hook's process
// group has been killed. Only a descendant that left the group (setsid) can
// hold a pipe open that long; its output is then abandoned.
const pipeGrace = 100 * time.Millisecond

// errStdoutTooLarge reports a hook that flooded stdout.
var errStdoutTooLarge = fmt.Errorf("stdout exceeded %d bytes", maxCommandStdout)

// procSpec is one run of a hook program.
type procSpec struct {
	path  string   // absolute path of the program
	argv  []string // argv[0] included
	env   []string
	dir   string
	stdin []byte
}

// procOutput is what a finished hook process left behind.
type procOutput struct {
	stdout []byte
	stderr []byte
	state  *os.ProcessState
}

// runProcess runs p in its own process group, feeds stdin, collects capped
// stdout and stderr, and waits for it. When ctx is done or stdout overflows
// it kills the whole group with SIGKILL, so a hook that ignores SIGTERM or
// forks children never outlives its deadline; once the leader has exited,
// whatever is left of its group is killed too (a hook that wants to leave
// something running must detach it with setsid).
//
// The pipes are os.Pipe files handed straight to the child, so exec starts
// no copying goroutines of its own and every goroutine here is joined
// before runProcess returns.
func runProcess(ctx context.Context, p procSpec) (procOutput, error) {
	if err := ctx.Err(); err != nil {
		return procOutput{}, err
	}
	var pipes [3][2]*os.File // stdin, stdout, stderr: {read end, write end}
	closeAll := func() {
		for _, pair := range pipes {
			for _, f := range pair {
				if f != nil {
					_ = f.Close()
				}
			}
		}
	}
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return procOutput{}, fmt.Errorf("pipe: %w", err)
		}
		pipes[i] = [2]*os.File{r, w}
	}
	stdinR, stdinW := pipes[0][0], pipes[0][1]
	stdoutR, stdoutW := pipes[1][0], pipes[1][1]
	stderrR, stderrW := pipes[2][0], pipes[2][1]

	cmd := &exec.Cmd{
		Path:        p.path,
		Args:        p.argv,
		Env:         p.env,
		Dir:         p.dir,
		Stdin:       stdinR,
		Stdout:      stdoutW,
		Stderr:      stderrW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	startErr := cmd.Start()
	// The child has its own copies now; the parent keeps only its ends, so
	// that EOF on stdout means every process of the hook has closed it.
	_ = stdinR.Close()
	_ = stdoutW.Close()
	_ = stderrW.Close()
	if startErr != nil {
		_ = stdinW.Close()
		_ = stdoutR.Close()
		_ = stderrR.Close()
		return procOutput{}, fmt.Errorf("start: %w", startErr)
	}
	pgid := cmd.Process.Pid

	var stdout, stderr bytes.Buffer
	overflow := make(chan struct{})
	readersDone := make(chan struct{}, 2)
	writerDone := make(chan struct{})
	waitDone := make(chan error, 1)

	go func() {
		defer close(writerDone)
		_, _ = stdinW.Write(p.stdin) // EPIPE when the hook does not read stdin: fine
		_ = stdinW.Close()
	}()
	go func() {
		defer func() { readersDone <- struct{}{} }()
		_, _ = stdout.ReadFrom(io.LimitReader(stdoutR, maxCommandStdout+1))
		if stdout.Len() > maxCommandStdout {
			close(overflow)
		}
	}()
	go func() {
		defer func() { readersDone <- struct{}{} }()
		_, _ = stderr.ReadFrom(io.LimitReader(stderrR, maxCommandStderr))
		_, _ = io.Copy(io.Discard, stderrR) // keep draining so the hook never blocks on stderr
	}()
	go func() { waitDone <- cmd.Wait() }()

	var runErr, waitErr error
	select {
	case waitErr = <-waitDone:
	case <-ctx.Done():
		killGroup(pgid)
		waitErr = <-waitDone
		runErr = ctx.Err()
	case <-overflow:
		killGroup(pgid)
		waitErr = <-waitDone
		runErr = errStdoutTooLarge
	}
	// The leader is gone; take the rest of its group with it. Its pgid cannot
	// have been reused while members of the group are alive, and an empty
	// group just answers ESRCH.
	killGroup(pgid)

	// Let the readers see EOF; a descendant that escaped the group with
	// setsid could hold the pipes forever, so give up after a grace period.
	grace := time.NewTimer(pipeGrace)
	defer grace.Stop()
	for pending := 2; pending > 0; {
		select {
		case <-readersDone:
			pending--
		case <-grace.C:
			_ = stdoutR.SetReadDeadline(time.Now())
			_ = stderrR.SetReadDeadline(time.Now())
		}
	}
	_ = stdinW.SetWriteDeadline(time.Now())
	<-writerDone
	_ = stdoutR.Close()
	_ = stderrR.Close()

	out := procOutput{stdout: stdout.Bytes(), stderr: stderr.Bytes(), state: cmd.ProcessState}
	if runErr != nil {
		return out, runErr
	}
	select {
	case <-overflow:
		return out, errStdoutTooLarge
	default:
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return out, fmt.Errorf("wait: %w", waitErr)
	}
	return out, nil
}

// killGroup sends SIGKILL to every process of the group pgid.
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// describeExit says how a process ended, for an error message.
func describeExit(state *os.ProcessState) string {
	if state == nil {
		return "did not run"
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %s", ws.Signal())
	}
	return fmt.Sprintf("exit status %d", state.ExitCode())
}
