//go:build unix

package bench

import "syscall"

// defaultMaxInFlight keeps open-loop requests within the process's file
// limit: a request through a proxy holds about four descriptors (client and
// proxy ends of both connections), all in this process for the bare hop.
func defaultMaxInFlight() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur < 1024 {
		return 200
	}
	return int(min(lim.Cur-256, 1<<20) / 4)
}
