//go:build !race

package hooks

// bombBesideBenignLimit is the script memory limit of the bomb-beside-
// benign-scripts test: the default (see script_memory_race_test.go).
const bombBesideBenignLimit = DefaultScriptMaxMemory
