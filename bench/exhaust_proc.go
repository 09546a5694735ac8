package bench

import (
	"os"
	"strconv"
)

// childProc reads another process's resident memory and descriptors
// from /proc: hookgate run apart from the load generator, so that what
// it holds is its own.
type childProc struct{ pid string }

func newChildProc(pid int) childProc { return childProc{pid: strconv.Itoa(pid)} }

// rss is its resident set size now, in bytes (0 without /proc).
func (p childProc) rss() uint64 { return procStatusOf(p.pid, "VmRSS")["VmRSS"] }

// peakRSS is its peak resident set size since it started (VmHWM).
func (p childProc) peakRSS() uint64 { return procStatusOf(p.pid, "VmHWM")["VmHWM"] }

// openFiles is the number of descriptors it has open (-1 without /proc).
func (p childProc) openFiles() int {
	ents, err := os.ReadDir("/proc/" + p.pid + "/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}
