package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// AuditKey seals error details with AES-256-GCM. Each sealed detail is
// bound to its execution's id (the additional data), so a detail moved to
// another row does not open.
type AuditKey struct {
	aead cipher.AEAD
}

// sealVersion leads every sealed detail, so the format can change.
const sealVersion = 1

// ParseAuditKey reads a 32-byte key written as hex (64 digits) or base64
// (standard or URL alphabet, padded or not). The error never quotes the
// key.
func ParseAuditKey(s string) (*AuditKey, error) {
	s = strings.TrimSpace(s)
	var raw []byte
	if b, err := hex.DecodeString(s); err == nil && len(b) == 32 {
		raw = b
	} else {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
				raw = b
				break
			}
		}
	}
	if raw == nil {
		return nil, errors.New("store: the audit key must be 32 bytes written as 64 hex digits or base64")
	}
	return newAuditKey(raw)
}

func newAuditKey(raw []byte) (*AuditKey, error) {
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, fmt.Errorf("store: audit key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("store: audit key: %w", err)
	}
	return &AuditKey{aead: aead}, nil
}

// Seal encrypts text for the execution id: version byte, random nonce,
// ciphertext and tag.
func (k *AuditKey) Seal(id, text string) ([]byte, error) {
	ns := k.aead.NonceSize()
	out := make([]byte, 1+ns, 1+ns+len(text)+k.aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("store: seal: %w", err)
	}
	return k.aead.Seal(out, out[1:1+ns], []byte(text), []byte(id)), nil
}

// Open decrypts what Seal produced for the same id. A wrong key, another
// id or a damaged detail fail.
func (k *AuditKey) Open(id string, sealed []byte) (string, error) {
	ns := k.aead.NonceSize()
	if len(sealed) < 1+ns+k.aead.Overhead() || sealed[0] != sealVersion {
		return "", errors.New("store: open error detail: not a sealed detail")
	}
	plain, err := k.aead.Open(nil, sealed[1:1+ns], sealed[1+ns:], []byte(id))
	if err != nil {
		return "", fmt.Errorf("store: open error detail: wrong key or damaged: %w", err)
	}
	return string(plain), nil
}
