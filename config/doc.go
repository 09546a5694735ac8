// Package config reads hookgate's YAML configuration: strict decoding
// (unknown keys are errors), ${ENV} expansion, defaults, and validation
// that reports every problem at once, each with its line in the file.
//
// Hook entries are decoded into hooks.Spec; their deeper validation (regexes,
// CEL, handler keys) belongs to the hook engine's compiler.
package config
