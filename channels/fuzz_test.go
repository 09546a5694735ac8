package channels

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/hookgate/hookgate/config"
)

// The fuzzers sign whatever body they are given, so that the input reaches
// the parsing behind the signature check. They require no panic, and that
// anything accepted is a well-formed decision or a handshake.

func fuzzChannel(f *testing.F, cfg config.Channel) Channel {
	f.Helper()
	ch, err := buildChannel(cfg, withClock(fixedNow))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(ch.Close)
	return ch
}

func checkAccepted(t *testing.T, d Decision, reply []byte, err error) {
	t.Helper()
	if err != nil {
		if d != (Decision{}) || reply != nil {
			t.Fatalf("refused with a result: %+v %q", d, reply)
		}
		return
	}
	if d.Empty() {
		if len(reply) == 0 {
			t.Fatal("a handshake without a reply")
		}
		return
	}
	if checkApprovalID(d.ApprovalID) != nil || d.UserID == "" || d.Channel == "" {
		t.Fatalf("accepted a malformed decision: %+v", d)
	}
}

func fixedNow() time.Time { return t0 }

func FuzzWebhookCallback(f *testing.F) {
	ch := fuzzChannel(f, webhookConfig("http://127.0.0.1:1", webhookSecret))
	f.Add(`{"approval_id":"appr-1","decision":"approve","user":"alice"}`)
	f.Add(`{"approval_id":"","decision":"reject","user":""}`)
	f.Add(`{"approval_id":["x"],"decision":null}`)
	f.Fuzz(func(t *testing.T, body string) {
		d, reply, err := ch.ParseCallback(signedWebhook(webhookSecret, t0, body), []byte(body))
		checkAccepted(t, d, reply, err)
	})
}

func FuzzSlackCallback(f *testing.F) {
	ch := fuzzChannel(f, slackConfig("http://127.0.0.1:1"))
	f.Add(slackPayload(slackApproveAction, "appr-1", "U0ALICE", slackChannelID))
	f.Add(slackPayload(slackRejectAction, "", "", ""))
	f.Add("payload=%7B%22type%22%3A%22block_actions%22%2C%22actions%22%3A%5Bnull%5D%7D")
	f.Add("payload=&payload=x")
	f.Fuzz(func(t *testing.T, body string) {
		d, reply, err := ch.ParseCallback(signedSlack(slackSigningSecret, t0, body), []byte(body))
		checkAccepted(t, d, reply, err)
	})
}

func FuzzFeishuCallback(f *testing.F) {
	ch := fuzzChannel(f, feishuConfig("http://127.0.0.1:1"))
	f.Add(feishuEvent(nil))
	f.Add(feishuEncrypt(feishuEncryptKey, feishuEvent(nil)))
	f.Add(`{"challenge":"c","token":"` + feishuVerifyToken + `","type":"url_verification"}`)
	f.Add(`{"encrypt":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}`)
	f.Add(`{"schema":"2.0","header":{"event_type":"card.action.trigger"},"event":{"action":{"value":null}}}`)
	f.Fuzz(func(t *testing.T, body string) {
		for _, h := range []http.Header{signedFeishu(feishuEncryptKey, t0, "n", body), {}} {
			d, reply, err := ch.ParseCallback(h, []byte(body))
			checkAccepted(t, d, reply, err)
		}
	})
}

func FuzzFeishuDecrypt(f *testing.F) {
	var seed struct{ Encrypt string }
	_ = json.Unmarshal([]byte(feishuEncrypt(feishuEncryptKey, `{"a":1}`)), &seed)
	f.Add(seed.Encrypt)
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, b64 string) {
		_, _ = feishuDecrypt(feishuEncryptKey, b64)
	})
}
