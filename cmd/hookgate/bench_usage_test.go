package main

import (
	"regexp"
	"strings"
	"testing"
)

// The bench help says what the command does and where results go, with no
// project history in it.
func TestBenchUsageSaysWhereResultsGo(t *testing.T) {
	if regexp.MustCompile(`(?i)\bissue\s*#?\d`).MatchString(benchUsage) {
		t.Errorf("bench usage mentions an issue number:\n%s", benchUsage)
	}
	if !strings.Contains(benchUsage, "OS temporary folder") {
		t.Errorf("bench usage does not say where results go outside the repository:\n%s", benchUsage)
	}
}
