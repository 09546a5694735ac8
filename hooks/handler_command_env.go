package hooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// passedEnv names the variables a command hook inherits from the proxy.
// Everything else in the proxy's environment (upstream API keys above all)
// stays out; an operator who wants more writes it under `env:`.
var passedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// defaultPath is PATH when the proxy itself runs without one.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// commandEnv builds a hook's environment: the allow-listed variables of
// the proxy, then the spec's `env:` (which wins). The result is sorted so
// that it is the same on every call, and computed once per handler.
func commandEnv(specEnv map[string]string) ([]string, error) {
	vars := make(map[string]string, len(passedEnv)+len(specEnv))
	for _, name := range passedEnv {
		if v, ok := os.LookupEnv(name); ok {
			vars[name] = v
		}
	}
	if vars["PATH"] == "" {
		vars["PATH"] = defaultPath
	}
	for k, v := range specEnv {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("env: invalid variable name %q", k)
		}
		if strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("env: value of %s contains a NUL byte", k)
		}
		vars[k] = v
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env, nil
}

// envValue returns the value of name in env (KEY=VALUE entries).
func envValue(env []string, name string) string {
	prefix := name + "="
	for _, kv := range env {
		if strings.HasPrefix(kv, prefix) {
			return kv[len(prefix):]
		}
	}
	return ""
}

// resolveExecutable turns the first word of a command into an absolute
// path once, at load, so that a missing or non-executable hook is a
// configuration error rather than a failure on the first tool call. A name
// with a slash is a file (relative to baseDir when relative); a bare name
// is looked up in the hook's own PATH, skipping relative entries such as
// "." so that the working directory can never supply the binary.
func resolveExecutable(name, baseDir, pathList string) (string, error) {
	if name == "" {
		return "", errors.New("command: empty program name")
	}
	if strings.ContainsRune(name, '/') {
		p := name
		if !filepath.IsAbs(p) && baseDir != "" {
			p = filepath.Join(baseDir, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("command: %w", err)
		}
		if err := checkExecutable(abs); err != nil {
			return "", fmt.Errorf("command: %w", err)
		}
		return abs, nil
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("command: %q not found in PATH %q", name, pathList)
}

// checkExecutable reports whether p is a regular file with an execute bit.
func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", p)
	}
	return nil
}
