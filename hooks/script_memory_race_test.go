//go:build race

package hooks

// bombBesideBenignLimit is the script memory limit of the bomb-beside-
// benign-scripts test. Under the race detector a native copy of a 128 MiB
// string (the bomb's last step over the 64 MiB default) is instrumented
// byte range by byte range and takes seconds on a loaded machine, during
// which the garbage collector cannot stop the world and the whole process
// stalls: a stall that only the race build has. A lower limit keeps the
// bomb's copies small enough to test what the test is about, that other
// scripts are not charged for the bomb's memory.
const bombBesideBenignLimit = 16 << 20
