package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// Load reads, expands, defaults and validates the configuration at path.
// A returned *Error lists every problem found, each with its line.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	cfg, err := Parse(data, path, osLookup)
	if cfg != nil {
		cfg.Path = path
		cfg.BaseDir = filepath.Dir(abs)
	}
	return cfg, err
}

// Parse decodes a configuration document. name labels error messages;
// lookup resolves ${NAME} references (os.LookupEnv in production).
func Parse(data []byte, name string, lookup func(string) (string, bool)) (*Config, error) {
	ps := &problems{file: name}

	// Pass 1: strict decoding of the raw text, so unknown keys and type
	// errors are reported with the lines the operator wrote. yaml reports
	// every such error of the document at once; checking goes on, so that
	// one run lists every independent problem.
	var strict Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&strict); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			decodeProblems(err, ps) // a syntax error: nothing more can be read
			return nil, ps.err()
		}
		decodeProblems(err, ps)
	}

	// Pass 2: expand ${ENV} on the node tree, then decode the result. A
	// type error pass 1 reported already is not reported again.
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		decodeProblems(err, ps)
		return nil, ps.err()
	}
	cfg := &Config{}
	if len(root.Content) > 0 {
		expandEnv(&root, ps, lookup)
		if err := root.Decode(cfg); err != nil {
			var te *yaml.TypeError
			if !errors.As(err, &te) {
				decodeProblems(err, ps)
				return nil, ps.err()
			}
			decodeProblems(err, ps)
		}
	}
	for i := range cfg.Hooks {
		cfg.Hooks[i].Line = lineOf(&root, "hooks", i)
		cfg.Hooks[i].Trusted = true
	}
	applyDefaults(cfg)
	validate(cfg, &root, ps, lookup)
	if err := ps.err(); err != nil {
		return cfg, err
	}
	return cfg, nil
}
