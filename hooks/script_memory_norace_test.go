//go:build !race

package hooks

// bombBesideBenignLimit is the script memory limit of the bomb-beside-
// benign-scripts test: the default. At 64 MiB the bomb's last copies (128
// to 256 MiB) stall the whole process on an overloaded 2-core machine
// (script_memory.go), and a benign call stalled beside the bomb from
// before the bomb's start was then sometimes the longest-running call over
// budget and was interrupted in the bomb's place (1 or 2 of about 1,000
// benign calls, in 2 of 4 runs at a load average of 8): the reason the
// default is 32 MiB.
const bombBesideBenignLimit = DefaultScriptMaxMemory
