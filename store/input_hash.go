package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// InputHash is the hex SHA-256 of v's JSON in the canonical form of RFC
// 8785 (JCS: keys sorted by UTF-16 code units, numbers as ECMAScript
// prints them, minimal string escapes, no whitespace), so the same input
// hashes the same whatever order its keys came in. v is marshalled with
// encoding/json first (a *hooks.Event, a map, raw JSON as
// json.RawMessage); nil hashes as null.
//
// It costs about 20 ms a megabyte of input, so the audit writer calls it
// on its own goroutine, never on the request path.
func InputHash(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("store: input hash: %w", err)
	}
	canon, err := Canonical(raw)
	if err != nil {
		return "", fmt.Errorf("store: input hash: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// Canonical rewrites a JSON document in RFC 8785 canonical form, refusing
// what I-JSON refuses (duplicate keys, lone surrogates).
func Canonical(doc []byte) ([]byte, error) {
	out, err := jcs.Transform(doc)
	if err != nil {
		return nil, fmt.Errorf("store: canonical json: %w", err)
	}
	return out, nil
}
