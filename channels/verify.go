package channels

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// This file holds the checks every callback goes through: a signed
// timestamp within the freshness window and signatures compared in
// constant time.

// errBadTimestamp reports a timestamp header that is missing or not a
// decimal number of seconds.
var errBadTimestamp = errors.New("timestamp header missing or not unix seconds")

// checkFresh parses a unix-seconds timestamp and refuses one further than
// FreshnessWindow from now, in either direction: a clock running ahead is
// no excuse for a request to live longer.
func checkFresh(ts string, now time.Time) error {
	if ts == "" || len(ts) > 12 {
		return errBadTimestamp
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec <= 0 {
		return errBadTimestamp
	}
	d := now.Sub(time.Unix(sec, 0))
	if d > FreshnessWindow || d < -FreshnessWindow {
		return ErrStale
	}
	return nil
}

// hmacSHA256Hex is hex(HMAC-SHA256(key, parts...)).
func hmacSHA256Hex(key string, parts ...[]byte) string {
	m := hmac.New(sha256.New, []byte(key))
	for _, p := range parts {
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// equalHexSig compares a received signature with the expected one in
// constant time, ignoring hex case. Lengths are public: both are fixed by
// the scheme.
func equalHexSig(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(strings.ToLower(got)), []byte(want)) == 1
}

// equalSecret compares a received token with the configured one in
// constant time; an empty configured token matches nothing.
func equalSecret(got, want string) bool {
	if want == "" {
		return false
	}
	return hmac.Equal([]byte(got), []byte(want))
}
