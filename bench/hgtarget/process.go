package hgtarget

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hookgate/hookgate/bench"
	"github.com/hookgate/hookgate/config"
	"github.com/hookgate/hookgate/internal/app"
)

// serveConfigEnv names the configuration file that a binary re-executed
// by StartProcess serves (see ServeIfChild).
const serveConfigEnv = "HGTARGET_SERVE_CONFIG"

// urlLinePrefix starts the line on which the child reports where it
// listens, the first line of its stdout.
const urlLinePrefix = "hgtarget-listening "

// childStartTimeout bounds how long a child may take to build its
// configuration and listen (a test binary on a loaded machine included).
const childStartTimeout = 60 * time.Second

// ServeIfChild serves hookgate and exits when this process was started by
// StartProcess; otherwise it returns at once. A command (or a TestMain)
// that uses StartProcess calls it first thing: the child is the same
// binary, re-executed.
func ServeIfChild() {
	path := os.Getenv(serveConfigEnv)
	if path == "" {
		return
	}
	os.Exit(serveChild(path, os.Stdout, os.Stderr))
}

// serveChild runs hookgate from the configuration file at path through
// internal/app, as `hookgate serve` does, reports its URL on stdout and
// serves until stdin closes (the parent stopped it, or died), a signal
// arrives, or a listener fails.
func serveChild(path string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintln(stderr, "hgtarget child:", err)
		return 1
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.Build(cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "hgtarget child:", err)
		return 1
	}
	if err := a.Start(); err != nil {
		a.Close()
		fmt.Fprintln(stderr, "hgtarget child:", err)
		return 1
	}
	defer a.Close()
	fmt.Fprintf(stdout, "%s%s\n", urlLinePrefix, a.URL())

	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdinClosed)
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-stdinClosed:
	case <-sigs:
	case err := <-a.Errors():
		fmt.Fprintln(stderr, "hgtarget child: listener stopped:", err)
		return 1
	}
	return 0
}

// ProcessStarter starts hookgate for the exhaustion test (bench.RunExhaust)
// as a separate process, so that its resident memory and descriptors are
// its own: the configuration is Document and WithStore over the
// bench's YAML (o.Base is replaced by it), with no hooks.
func ProcessStarter(o Options) bench.ExhaustStarter {
	return func(upstreamURL string, base []byte) (bench.ExhaustTarget, error) {
		o.Base = base
		return StartProcess(o, upstreamURL, &bench.Scenario{Name: "exhaust"})
	}
}

// StartProcess starts hookgate in front of upstreamURL with sc's hooks in
// a child process: this binary re-executed (its main must call
// ServeIfChild), with the configuration Start would build written to a
// temporary file. The child's stderr goes to o.Notes. Stop closes the
// child's stdin, which ends it, waits for it (killing it after 10 s) and
// removes the temporary files. sc's hooks may not name the policy server.
func StartProcess(o Options, upstreamURL string, sc *bench.Scenario) (bench.ExhaustTarget, error) {
	if strings.Contains(sc.Hooks, "${"+bench.PolicyURLVar+"}") {
		return bench.ExhaustTarget{}, fmt.Errorf("hgtarget: scenario %s: StartProcess does not start the policy server for ${%s}", sc.Name, bench.PolicyURLVar)
	}
	exe, err := os.Executable()
	if err != nil {
		return bench.ExhaustTarget{}, fmt.Errorf("hgtarget: %w", err)
	}
	dir, err := os.MkdirTemp("", "hookgate-bench-proc-")
	if err != nil {
		return bench.ExhaustTarget{}, fmt.Errorf("hgtarget: %w", err)
	}
	fail := func(err error) (bench.ExhaustTarget, error) {
		_ = os.RemoveAll(dir)
		return bench.ExhaustTarget{}, fmt.Errorf("hgtarget: scenario %s: %w", sc.Name, err)
	}
	doc, err := Document(o.Base, upstreamURL, sc.Hooks, notes(o))
	if err == nil {
		doc, err = WithStore(doc, filepath.Join(dir, "hookgate.db"), notes(o))
	}
	if err != nil {
		return fail(err)
	}
	// Parsed here as well, so that a bad document is reported by the
	// parent rather than as a child that never listens.
	if _, err := config.Parse(doc, "bench.yaml", lookup(o, nil)); err != nil {
		return fail(err)
	}
	path := filepath.Join(dir, "hookgate.yaml")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		return fail(err)
	}

	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serveConfigEnv+"="+path)
	cmd.Stderr = notes(o)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fail(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	exited := make(chan struct{})
	stop := func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = os.RemoveAll(dir)
	}

	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), urlLinePrefix); ok && !sent {
				urls <- u
				sent = true
			}
		}
		close(urls)
		_ = cmd.Wait() // after stdout is read to its end, as Wait requires
		close(exited)
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			stop()
			return fail(errors.New("the hookgate child exited before listening (its stderr says why)"))
		}
		return bench.ExhaustTarget{URL: u, PID: cmd.Process.Pid, Stop: stop}, nil
	case <-time.After(childStartTimeout):
		stop()
		return fail(fmt.Errorf("the hookgate child did not listen within %s", childStartTimeout))
	}
}
