package channels

import (
	"strconv"
	"testing"
)

func TestSeenSet(t *testing.T) {
	s := newSeenSet()
	if !s.first("a", t0) {
		t.Fatal("first sighting refused")
	}
	if s.first("a", t0.Add(FreshnessWindow)) {
		t.Fatal("second sighting inside the window accepted")
	}
	if !s.first("a", t0.Add(2*FreshnessWindow+1)) {
		t.Fatal("sighting after the entry expired refused")
	}
}

func TestSeenSetBounded(t *testing.T) {
	s := newSeenSet()
	for i := range maxSeen + 10 {
		s.first(strconv.Itoa(i), t0)
	}
	if len(s.at) > maxSeen || len(s.order) > maxSeen {
		t.Fatalf("set holds %d/%d entries, bound is %d", len(s.at), len(s.order), maxSeen)
	}
	if s.first(strconv.Itoa(maxSeen+9), t0) {
		t.Fatal("newest entry was forgotten")
	}
}
