package store

import (
	"crypto/rand"
	"errors"
	"fmt"
)

// captureAD is a captured event's additional data: its row id, under a
// prefix of its own so that a sealed error detail never opens as a
// capture (nor the other way round).
func captureAD(id string) []byte { return []byte("captured_events:" + id) }

// SealCapture encrypts a captured event's record for its row id.
func (k *AuditKey) SealCapture(id string, record []byte) ([]byte, error) {
	ns := k.aead.NonceSize()
	out := make([]byte, 1+ns, 1+ns+len(record)+k.aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("store: seal captured event: %w", err)
	}
	return k.aead.Seal(out, out[1:1+ns], record, captureAD(id)), nil
}

// ErrCaptureSeal is wrapped by OpenCapture's failures: a wrong key, a
// blob of another row, or damage.
var ErrCaptureSeal = errors.New("captured event does not open with this key (wrong audit key, moved between rows, or damaged)")

// OpenCapture decrypts what SealCapture produced for the same row id.
func (k *AuditKey) OpenCapture(id string, sealed []byte) ([]byte, error) {
	ns := k.aead.NonceSize()
	if len(sealed) < 1+ns+k.aead.Overhead() || sealed[0] != sealVersion {
		return nil, fmt.Errorf("store: captured event %s: not a sealed record: %w", id, ErrCaptureSeal)
	}
	plain, err := k.aead.Open(nil, sealed[1:1+ns], sealed[1+ns:], captureAD(id))
	if err != nil {
		return nil, fmt.Errorf("store: captured event %s: %w", id, ErrCaptureSeal)
	}
	return plain, nil
}
