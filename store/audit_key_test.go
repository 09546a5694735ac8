package store

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

var testKeyRaw = bytes.Repeat([]byte{0x42}, 32)

func TestParseAuditKey(t *testing.T) {
	for _, s := range []string{
		hex.EncodeToString(testKeyRaw),
		strings.ToUpper(hex.EncodeToString(testKeyRaw)),
		base64.StdEncoding.EncodeToString(testKeyRaw),
		base64.RawURLEncoding.EncodeToString(testKeyRaw) + "\n",
	} {
		if _, err := ParseAuditKey(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"", "short", hex.EncodeToString(testKeyRaw[:16]), strings.Repeat("z", 64)} {
		_, err := ParseAuditKey(s)
		if err == nil {
			t.Errorf("%q accepted", s)
		} else if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("error quotes the key: %v", err)
		}
	}
}

func TestSealedDetailOpensOnlyWithTheKeyAndItsRow(t *testing.T) {
	k, _ := ParseAuditKey(hex.EncodeToString(testKeyRaw))
	other, _ := ParseAuditKey(hex.EncodeToString(bytes.Repeat([]byte{7}, 32)))
	const detail = "exec: connection refused while posting to the policy server"
	sealed, err := k.Seal("row-1", detail)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("connection refused")) {
		t.Fatal("sealed detail holds the plain text")
	}
	if got, err := k.Open("row-1", sealed); err != nil || got != detail {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := other.Open("row-1", sealed); err == nil {
		t.Fatal("opened with another key")
	}
	if _, err := k.Open("row-2", sealed); err == nil {
		t.Fatal("opened as another row's detail")
	}
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	if _, err := k.Open("row-1", tampered); err == nil {
		t.Fatal("opened a damaged detail")
	}
	if _, err := k.Open("row-1", []byte{1, 2}); err == nil {
		t.Fatal("opened garbage")
	}
	again, _ := k.Seal("row-1", detail)
	if bytes.Equal(again, sealed) {
		t.Fatal("nonce reused")
	}
}
