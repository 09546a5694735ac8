//go:build !unix

package bench

import "time"

// raiseFileLimit reports no limit where there is no RLIMIT_NOFILE.
func raiseFileLimit() (uint64, error) { return 0, nil }

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
