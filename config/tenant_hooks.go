package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/hookgate/hookgate/hooks"
)

// LoadTenantHooks reads a tenant's hooks file: a YAML list of hook entries
// in the same format as `hooks:`. Its entries are untrusted (they may block,
// never rewrite) and always scoped to the tenant; a scope naming anything
// else is an error, and so is a channel that is not one of the tenant's
// own or a path that leads outside the file's folder. A missing or broken
// file is an error listing every problem with its line.
func LoadTenantHooks(t *Tenant, baseDir string) ([]hooks.Spec, error) {
	if t.HooksFile == "" {
		return nil, nil
	}
	path := t.HooksFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(baseDir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tenant %s: hooks file: %w", t.ID, err)
	}
	return ParseTenantHooks(t, t.HooksFile, filepath.Dir(path), data)
}

// ParseTenantHooks decodes tenant t's hook entries from data; name labels
// the problems, and dir is the folder the file's own paths are read from
// (and confined to). Every file an entry names is read here, so no handler
// reads a tenant's path later.
func ParseTenantHooks(t *Tenant, name, dir string, data []byte) ([]hooks.Spec, error) {
	tenant := t.ID
	ps := &problems{file: name}
	var specs []hooks.Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&specs); err != nil && !errors.Is(err, io.EOF) {
		decodeProblems(err, ps)
		return nil, ps.err()
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	own := "tenant:" + tenant
	for i := range specs {
		s := &specs[i]
		s.Line = lineOf(&root, i)
		s.Origin = name
		s.Trusted = false
		switch s.Scope {
		case "", own:
			s.Scope = own
		default:
			ps.add(s.Line, fmt.Sprintf("[%d].scope", i), "a tenant's hook is always scoped to %s, got %q", own, s.Scope)
		}
		checkTenantHookChannels(t, s, i, ps)
		if s.DryRun && s.Event.Valid() && s.Class() == hooks.Observing {
			ps.add(lineOf(&root, i, "dry_run"), fmt.Sprintf("[%d].dry_run", i), dryRunProblem, s.Event)
		}
		inlineTenantFiles(s, i, dir, ps)
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return specs, nil
}
