//go:build !race

package hooks

// bombBesideBenignLimit is the script memory limit of the bomb-beside-
// benign-scripts test. Not the 64 MiB default: at that limit the bomb's
// last copies (128 to 256 MiB) stall the whole process on an overloaded
// 2-core machine (script_memory.go), and a benign call stalled beside the
// bomb from before the bomb's start is then sometimes the longest-running
// call over budget and is interrupted in the bomb's place (1 or 2 of about
// 1,000 benign calls, in 2 of 4 runs at a load average of 8). At 32 MiB
// the copies and the stalls are a quarter of that, and the test checks
// what it is about: the bomb's memory is not charged to the others.
const bombBesideBenignLimit = 32 << 20
