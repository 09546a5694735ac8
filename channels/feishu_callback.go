package channels

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// Headers of Feishu's request signature.
const (
	larkSignatureHeader = "X-Lark-Signature"
	larkTimestampHeader = "X-Lark-Request-Timestamp"
	larkNonceHeader     = "X-Lark-Request-Nonce"
)

// feishuEnvelope is every shape a callback body takes: {"encrypt": ...}
// when an encrypt key is set, a url_verification challenge, or a schema
// 2.0 event.
type feishuEnvelope struct {
	Encrypt string `json:"encrypt"`

	Type      string `json:"type"`
	Challenge string `json:"challenge"`
	Token     string `json:"token"`

	Schema string `json:"schema"`
	Header struct {
		EventID   string `json:"event_id"`
		EventType string `json:"event_type"`
		Token     string `json:"token"`
		AppID     string `json:"app_id"`
	} `json:"header"`
	Event struct {
		Operator struct {
			OpenID string `json:"open_id"`
		} `json:"operator"`
		Action struct {
			Tag   string          `json:"tag"`
			Value json.RawMessage `json:"value"`
		} `json:"action"`
		Context struct {
			OpenMessageID string `json:"open_message_id"`
			OpenChatID    string `json:"open_chat_id"`
		} `json:"context"`
	} `json:"event"`
}

// ParseCallback handles what Feishu posts to the card callback address:
//
//   - the url_verification handshake, answered with its challenge once the
//     verification token matches (Feishu does not sign it);
//   - card.action.trigger (schema 2.0), which must carry a valid
//     X-Lark-Signature: hex(sha256(timestamp + nonce + encrypt_key + raw
//     body)), a fresh timestamp, the verification token in header.token,
//     this app's id and this chat's id.
//
// Bodies are decrypted (AES-256-CBC, key sha256(encrypt_key), the IV
// leading the base64 ciphertext) only after the signature has been checked,
// except for the unsigned handshake, whose failures all look alike. The
// reply to a decision is a toast saying it was received; whether it
// prevailed is the store's to say.
func (f *feishu) ParseCallback(header http.Header, body []byte) (Decision, []byte, error) {
	if f.verificationToken == "" {
		return Decision{}, nil, callbackError(f.name, ErrCallbacksDisabled, "no verification_token_env configured")
	}
	if len(body) > MaxCallbackBytes {
		return Decision{}, nil, callbackError(f.name, ErrTooLarge, "")
	}
	sig := header.Get(larkSignatureHeader)
	signed := sig != ""
	now := f.now()
	if signed {
		if f.encryptKey == "" {
			return Decision{}, nil, callbackError(f.name, ErrUnauthenticated, "signed callback but no encrypt_key_env to check it with")
		}
		ts := header.Get(larkTimestampHeader)
		sum := sha256.New()
		sum.Write([]byte(ts))
		sum.Write([]byte(header.Get(larkNonceHeader)))
		sum.Write([]byte(f.encryptKey))
		sum.Write(body)
		if !equalHexSig(sig, hex.EncodeToString(sum.Sum(nil))) {
			return Decision{}, nil, callbackError(f.name, ErrUnauthenticated, "signature mismatch")
		}
		if err := checkFresh(ts, now); err != nil {
			return Decision{}, nil, freshnessError(f.name, err)
		}
	}

	env, err := f.open(body)
	if err != nil {
		return Decision{}, nil, callbackError(f.name, ErrMalformed, err.Error())
	}
	if env.Type == "url_verification" {
		if !equalSecret(env.Token, f.verificationToken) {
			return Decision{}, nil, callbackError(f.name, ErrUnauthenticated, "verification token mismatch")
		}
		if env.Challenge == "" || len(env.Challenge) > 256 {
			return Decision{}, nil, callbackError(f.name, ErrMalformed, "challenge missing or too long")
		}
		reply, err := json.Marshal(struct {
			Challenge string `json:"challenge"`
		}{env.Challenge})
		if err != nil {
			return Decision{}, nil, callbackError(f.name, ErrMalformed, "challenge does not encode")
		}
		return Decision{}, reply, nil
	}

	if !signed {
		detail := "card callbacks must carry X-Lark-Signature"
		if f.encryptKey == "" {
			detail = "card callbacks need encrypt_key_env so that their signature can be checked"
		}
		return Decision{}, nil, callbackError(f.name, ErrUnauthenticated, detail)
	}
	if env.Schema != "2.0" || env.Header.EventType != "card.action.trigger" {
		return Decision{}, nil, callbackError(f.name, ErrMalformed, "not a schema 2.0 card.action.trigger")
	}
	if !equalSecret(env.Header.Token, f.verificationToken) {
		return Decision{}, nil, callbackError(f.name, ErrUnauthenticated, "verification token mismatch")
	}
	if env.Header.AppID != f.appID {
		return Decision{}, nil, callbackError(f.name, ErrForeign, "callback for another app")
	}
	var v feishuActionValue
	if err := json.Unmarshal(env.Event.Action.Value, &v); err != nil {
		return Decision{}, nil, callbackError(f.name, ErrMalformed, "action value is not hookgate's")
	}
	d, err := decisionFrom(v.ApprovalID, v.Decision)
	if err != nil {
		return Decision{}, nil, callbackError(f.name, ErrMalformed, err.Error())
	}
	if env.Event.Operator.OpenID == "" {
		return Decision{}, nil, callbackError(f.name, ErrMalformed, "no operator open_id")
	}
	if env.Event.Context.OpenChatID != f.chatID {
		return Decision{}, nil, callbackError(f.name, ErrForeign, "action came from another chat")
	}
	if !f.seen.first(strings.ToLower(sig), now) {
		return Decision{}, nil, callbackError(f.name, ErrReplayed, "")
	}
	if id := env.Header.EventID; id != "" && !f.seen.first("event:"+id, now) {
		return Decision{}, nil, callbackError(f.name, ErrReplayed, "event id seen before")
	}
	d.UserID, d.Channel, d.Conversation = env.Event.Operator.OpenID, f.name, f.chatID
	reply, err := json.Marshal(map[string]any{"toast": map[string]string{
		"type": "info", "content": "Received: " + d.Verdict(),
	}})
	if err != nil {
		return Decision{}, nil, callbackError(f.name, ErrMalformed, "reply does not encode")
	}
	return d, reply, nil
}

// open reads the body, decrypting it when it is {"encrypt": ...}.
func (f *feishu) open(body []byte) (feishuEnvelope, error) {
	var env feishuEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return feishuEnvelope{}, errors.New("body is not JSON")
	}
	if env.Encrypt == "" {
		return env, nil
	}
	if f.encryptKey == "" {
		return feishuEnvelope{}, errors.New("body is encrypted but no encrypt_key_env is configured")
	}
	plain, err := feishuDecrypt(f.encryptKey, env.Encrypt)
	if err != nil {
		return feishuEnvelope{}, err
	}
	var inner feishuEnvelope
	if err := json.Unmarshal(plain, &inner); err != nil || inner.Encrypt != "" {
		return feishuEnvelope{}, errUndecryptable
	}
	return inner, nil
}

// errUndecryptable is the one error an encrypted body yields, whatever went
// wrong (base64, length, padding, JSON), so that an unsigned sender learns
// nothing from the difference: no padding oracle.
var errUndecryptable = errors.New("encrypted body does not decrypt")

// feishuDecrypt undoes Feishu's encryption: base64 of a 16-byte IV followed
// by AES-256-CBC ciphertext under sha256(encryptKey), PKCS#7 padded.
func feishuDecrypt(encryptKey, b64 string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) < 2*aes.BlockSize || len(raw)%aes.BlockSize != 0 {
		return nil, errUndecryptable
	}
	key := sha256.Sum256([]byte(encryptKey))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, errUndecryptable
	}
	iv, data := raw[:aes.BlockSize], raw[aes.BlockSize:]
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(data, data)
	pad := int(data[len(data)-1])
	if pad == 0 || pad > aes.BlockSize {
		return nil, errUndecryptable
	}
	want := make([]byte, pad)
	for i := range want {
		want[i] = byte(pad)
	}
	if subtle.ConstantTimeCompare(data[len(data)-pad:], want) != 1 {
		return nil, errUndecryptable
	}
	return data[:len(data)-pad], nil
}
