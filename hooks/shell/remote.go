package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Remote runners run a command on another machine or in a container:
// ssh gives its command words, joined by spaces, to the remote user's
// shell; docker and podman exec, and kubectl exec, run an argv in a
// container. What they run is judged as if it ran here: a recursive
// delete of "/" destroys the machine it reaches, wherever that is.

// sshValueOpts are ssh's options that take a separate value.
const sshValueOpts = "BbcDEeFIiJLlmOopQRSWw"

// remoteRunner reports whether a command (by its base name) runs another
// command remotely, and records and judges it if so.
func (w *walker) remoteRunner(name string, argv []string, c ctx) bool {
	switch name {
	case "ssh":
		w.record(argv, c)
		w.ssh(argv, c)
	case "docker", "podman", "kubectl", "oc":
		read := containerExec
		if name == "kubectl" || name == "oc" {
			read = kubectlExec
		}
		inner, ok := read(argv)
		if !ok {
			return false
		}
		w.record(argv, c)
		if len(inner) > 0 {
			w.emit(inner, c.through(name+" exec"))
		}
	default:
		return false
	}
	return true
}

// ssh judges the command ssh runs on its destination: its words after the
// destination, joined, as the remote shell reads them; with none, the
// remote login shell reads standard input, which is judged as a shell's.
func (w *walker) ssh(argv []string, c ctx) {
	i := 1
	for i < len(argv) {
		a := argv[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		// A cluster of flags; a value option takes the rest of the word
		// or the next one.
		if k := strings.IndexAny(a[1:], sshValueOpts); k >= 0 && k+2 == len(a) {
			i += 2
			continue
		}
		i++
	}
	if i >= len(argv) {
		return // no destination: ssh prints its usage
	}
	rest := argv[i+1:]
	switch {
	case len(rest) > 0:
		w.script(strings.Join(rest, " "), "ssh", syntax.LangBash, c)
	case c.hasScript:
		w.script(c.script, "ssh <<EOF", syntax.LangBash, c)
	case c.stdin != "":
		w.unresolvable("pipe_to_shell", "remote shell (ssh) reading a script from "+c.stdin)
	}
}

// containerExec reads `docker [global options] exec|container exec
// [options] CONTAINER CMD...`: ok is true for an exec, inner its argv
// (nil when none is given).
func containerExec(argv []string) (inner []string, ok bool) {
	i := skipOpts(argv, 1, "-H --host -c --context --config -l --log-level --tlscacert --tlscert --tlskey --url --connection --identity")
	if i < len(argv) && argv[i] == "container" {
		i++
	}
	if i >= len(argv) || argv[i] != "exec" {
		return nil, false
	}
	i = skipOpts(argv, i+1, "-e --env --env-file -u --user -w --workdir --detach-keys")
	if i+1 >= len(argv) {
		return nil, true
	}
	return argv[i+1:], true
}

// kubectlExec reads `kubectl [options] exec [options] POD [--] CMD...`:
// ok is true for an exec, inner the argv run in the pod.
func kubectlExec(argv []string) (inner []string, ok bool) {
	const valued = "-n --namespace -c --container -f --filename --context --kubeconfig --cluster --user -s --server --token --pod-running-timeout --request-timeout -l --selector"
	i := skipOpts(argv, 1, valued)
	if i >= len(argv) || argv[i] != "exec" {
		return nil, false
	}
	for j := i + 1; j < len(argv); j++ {
		if argv[j] == "--" {
			return argv[j+1:], true
		}
	}
	// The older form without "--": the words after the pod.
	i = skipOpts(argv, i+1, valued)
	if i+1 >= len(argv) {
		return nil, true
	}
	return argv[i+1:], true
}

// skipOpts returns the index of the first word from i on that is not an
// option, skipping the value of each option in valued given apart
// ("-n ns"; "--namespace=ns" and "-nns" carry theirs).
func skipOpts(argv []string, i int, valued string) int {
	for i < len(argv) {
		a := argv[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return i
		}
		if !strings.Contains(a, "=") && takesSeparateValue(a, valued) {
			i += 2
			continue
		}
		i++
	}
	return i
}

func takesSeparateValue(opt, valued string) bool {
	for o := range strings.FieldsSeq(valued) {
		if o == opt {
			return true
		}
	}
	return false
}
