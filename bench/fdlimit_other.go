//go:build !unix

package bench

func defaultMaxInFlight() int { return 2000 }
