// Package configs holds hookgate's example and demo configurations. The
// demo configuration is embedded so that `hookgate demo` runs from the
// binary alone.
package configs

import _ "embed"

// Demo is configs/demo.yaml.
//
//go:embed demo.yaml
var Demo []byte
