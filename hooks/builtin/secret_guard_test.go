package builtin

import (
	"context"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hookgate/hookgate/hooks"
)

// Fake credentials are assembled at run time from a seeded generator, so
// that no file in the repository holds a string shaped like a live
// credential.
const (
	alnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperNum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexDigits = "0123456789abcdef"
	base64Std = alnum + "+/"
)

var fakeRand = rand.New(rand.NewPCG(1, 2))

func fake(prefix, alphabet string, n int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for range n {
		b.WriteByte(alphabet[fakeRand.IntN(len(alphabet))])
	}
	return b.String()
}

// pemBody is 3 lines of base64 key material.
func pemBody(sep string) string {
	return fake("", base64Std, 64) + sep + fake("", base64Std, 64) + sep + fake("", base64Std, 20) + "=="
}

func fakeJWT() string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc.EncodeToString([]byte(`{"sub":"1234567890","name":"someone","iat":1516239022}`)) + "." +
		fake("", alnum+"-_", 43)
}

func newSecretGuard(t *testing.T, with map[string]any) hooks.Handler {
	t.Helper()
	h, err := NewSecretGuard(hooks.BuiltinConfig{HookID: "secrets", Event: hooks.PreToolUse, With: with})
	if err != nil {
		t.Fatalf("NewSecretGuard: %v", err)
	}
	return h
}

func judge(t *testing.T, h hooks.Handler, input map[string]any) hooks.Result {
	t.Helper()
	res, err := h.Handle(context.Background(), &hooks.Event{Event: hooks.PreToolUse, ToolName: "exec", ToolInput: input})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

type secretCase struct {
	name   string
	input  map[string]any
	kind   string // "" : allowed
	where  string
	secret string // must never appear in the reason
}

func cmd(s string) map[string]any { return map[string]any{"command": s} }

func defaultSecretCases() []secretCase {
	akia := fake("AKIA", upperNum, 16)
	asia := fake("ASIA", upperNum, 16)
	awsSecret := fake("", base64Std, 40)
	ghp := fake("ghp_", alnum, 36)
	gho := fake("gho_", alnum, 36)
	pat := fake("github_pat_", alnum+"_", 82)
	xoxb := "xoxb-" + fake("", "0123456789", 12) + "-" + fake("", "0123456789", 13) + "-" + fake("", alnum, 24)
	xoxp := "xoxp-" + fake("", "0123456789", 12) + "-" + fake("", alnum, 30)
	hook := "https://hooks.slack.com/services/T" + fake("", upperNum, 8) + "/B" + fake("", upperNum, 8) + "/" + fake("", alnum, 24)
	ant := "sk-ant-api03-" + fake("", alnum+"-_", 95) + "AA"
	oai := "sk-proj-" + fake("", alnum+"-_", 120) + "aB3"
	oaiLegacy := "sk-" + fake("", alnum, 45) + "aB3"
	stripe := "sk_" + "live_" + fake("", alnum, 24)
	rk := "rk_" + "test_" + fake("", alnum, 24)
	jwt := fakeJWT()
	rsa := "-----BEGIN RSA PRIVATE KEY-----\n" + pemBody("\n") + "\n-----END RSA PRIVATE KEY-----\n"
	escaped := `-----BEGIN PRIVATE KEY-----\n` + pemBody(`\n`) + `\n-----END PRIVATE KEY-----\n`
	openssh := "-----BEGIN OPENSSH PRIVATE KEY-----\r\n" + pemBody("\r\n") + "\r\n-----END OPENSSH PRIVATE KEY-----"
	encrypted := "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,5E8E1F2B7C9A3D4F\n\n" + pemBody("\n") + "\n-----END RSA PRIVATE KEY-----"
	pgp := "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n" + pemBody("\n") + "\n-----END PGP PRIVATE KEY BLOCK-----"
	saKeyID := fake("", hexDigits, 40)
	saFile := `{"type": "service_account", "project_id": "demo", "private_key_id": "` + saKeyID + `", "private_key": "-----BEGIN PRIVATE KEY-----\n` + pemBody(`\n`) + `\n-----END PRIVATE KEY-----\n", "client_email": "x@demo.iam.gserviceaccount.com"}`
	genericPw := "Xk9#pQ2!vL7zR4"

	return []secretCase{
		// AWS
		{"aws key id", cmd("aws configure set aws_access_key_id " + akia), "aws_access_key_id", "toolInput.command", akia},
		{"aws temporary key id", map[string]any{"env": map[string]any{"KEY": asia}}, "aws_access_key_id", "toolInput.env.KEY", asia},
		{"aws key id too short", cmd("AKIA" + "ABCDEF"), "", "", ""},
		{"aws key id inside a word", cmd("XAKIA" + fake("", upperNum, 16) + "X"), "", "", ""},
		{"aws secret assignment", cmd("export AWS_SECRET_ACCESS_KEY=" + awsSecret + " && aws s3 ls"), "aws_secret_access_key", "toolInput.command", awsSecret},
		{"aws secret in JSON text", map[string]any{"content": `{"AccessKeyId": "x", "SecretAccessKey": "` + awsSecret + `"}`}, "aws_secret_access_key", "toolInput.content", awsSecret},
		{"aws secret by key name", map[string]any{"env": map[string]any{"AWS_SECRET_ACCESS_KEY": awsSecret}}, "aws_secret_access_key", "toolInput.env.AWS_SECRET_ACCESS_KEY", awsSecret},
		{"40 random characters alone", cmd("echo " + awsSecret), "", "", ""},
		{"aws secret name without a value", cmd("read AWS_SECRET_ACCESS_KEY"), "", "", ""},
		// GCP and private keys
		{"gcp service account file", map[string]any{"path": "sa.json", "content": saFile}, "gcp_service_account", "toolInput.content", saKeyID},
		{"gcp service account object", map[string]any{"sa": map[string]any{"type": "service_account", "private_key_id": saKeyID}}, "gcp_service_account", "toolInput.sa.private_key_id", saKeyID},
		{"rsa private key", map[string]any{"content": rsa}, "private_key", "toolInput.content", rsa[32:60]},
		{"escaped newlines", cmd(`printf '` + escaped + `' > key.pem`), "private_key", "toolInput.command", escaped[30:60]},
		{"openssh with CRLF", map[string]any{"content": openssh}, "private_key", "toolInput.content", openssh[40:70]},
		{"encrypted pem", map[string]any{"content": encrypted}, "private_key", "toolInput.content", ""},
		{"pgp block", map[string]any{"content": pgp}, "private_key", "toolInput.content", ""},
		{"armour line in code", map[string]any{"content": `if strings.HasPrefix(s, "-----BEGIN RSA PRIVATE KEY-----") {`}, "", "", ""},
		{"redacted key", map[string]any{"content": "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----"}, "", "", ""},
		// GitHub
		{"github personal token", cmd("git clone https://" + ghp + "@github.com/o/r"), "github_token", "toolInput.command", ghp},
		{"github oauth token", map[string]any{"headers": map[string]any{"Authorization": "token " + gho}}, "github_token", "toolInput.headers.Authorization", gho},
		{"github fine-grained token", map[string]any{"argv": []any{"gh", "auth", "login", "--with-token", pat}}, "github_token", "toolInput.argv[4]", pat},
		{"github token too short", cmd("ghp_" + "abc"), "", "", ""},
		// Slack
		{"slack bot token", cmd("curl -H 'Authorization: Bearer " + xoxb + "' https://slack.com/api/chat.postMessage"), "slack_token", "toolInput.command", xoxb},
		{"slack user token", map[string]any{"token": xoxp}, "slack_token", "toolInput.token", xoxp},
		{"slack webhook", map[string]any{"url": hook}, "slack_webhook", "toolInput.url", hook[30:]},
		// Model providers, Stripe, JWT
		{"anthropic key", cmd("ANTHROPIC_API_KEY=" + ant + " python run.py"), "anthropic_key", "toolInput.command", ant},
		{"openai project key", map[string]any{"config": map[string]any{"api": oai}}, "openai_key", "toolInput.config.api", oai},
		{"openai legacy key", cmd("export OPENAI_API_KEY=" + oaiLegacy), "openai_key", "toolInput.command", oaiLegacy},
		{"sk- words are not keys", cmd("pip install sk-learn-compatible-estimator-class && task-runner-something-long"), "", "", ""},
		{"stripe secret key", cmd("stripe login --api-key " + stripe), "stripe_key", "toolInput.command", stripe},
		{"stripe restricted key", map[string]any{"k": rk}, "stripe_key", "toolInput.k", rk},
		{"stripe publishable key", map[string]any{"k": "pk_" + "live_" + fake("", alnum, 24)}, "", "", ""},
		{"jwt", map[string]any{"headers": map[string]any{"Authorization": "Bearer " + jwt}}, "jwt", "toolInput.headers.Authorization", jwt},
		{"jwt header only", cmd("echo eyJhbGciOiJIUzI1NiJ9"), "", "", ""},
		// Where the secret sits
		{"secret as a map key", map[string]any{"env": map[string]any{akia: "x"}}, "aws_access_key_id", "a key of toolInput.env", akia},
		{"odd key quoted in the path", map[string]any{"a b": map[string]any{"c.d": []any{"x", ghp}}}, "github_token", `toolInput["a b"]["c.d"][1]`, ghp},
		{"[]string values", map[string]any{"argv": []string{"x", ghp}}, "github_token", "toolInput.argv[1]", ghp},
		// generic_assignment is off by default
		{"generic off by default", cmd("mysql --password=" + genericPw), "", "", ""},
		// Ordinary input
		{"ordinary command", cmd("ls -la /tmp && git status"), "", "", ""},
		{"numbers and bools", map[string]any{"n": 3.0, "ok": true, "nil": nil}, "", "", ""},
	}
}

func TestSecretGuardDefaults(t *testing.T) {
	h := newSecretGuard(t, nil)
	for _, tc := range defaultSecretCases() {
		t.Run(tc.name, func(t *testing.T) {
			checkSecret(t, judge(t, h, tc.input), tc)
		})
	}
}

func checkSecret(t *testing.T, res hooks.Result, tc secretCase) {
	t.Helper()
	if tc.kind == "" {
		if res.Decision != hooks.Allow {
			t.Fatalf("blocked: %s", res.Reason)
		}
		return
	}
	if res.Decision != hooks.Block {
		t.Fatalf("allowed, want block as %s", tc.kind)
	}
	if !strings.Contains(res.Reason, "("+tc.kind+")") || !strings.Contains(res.Reason, " in "+tc.where+":") {
		t.Fatalf("reason %q, want kind %s at %s", res.Reason, tc.kind, tc.where)
	}
	if tc.secret != "" && strings.Contains(res.Reason, tc.secret) {
		t.Fatalf("reason echoes the secret: %q", res.Reason)
	}
}

func TestSecretGuardGeneric(t *testing.T) {
	h := newSecretGuard(t, map[string]any{"kinds": []any{"generic_assignment"}})
	pw := "Xk9#pQ2!vL7zR4"
	key := fake("", alnum, 32)
	for _, tc := range []secretCase{
		{"password flag", cmd("mysql --password=" + pw), "generic_assignment", "toolInput.command", pw},
		{"api_key in yaml", map[string]any{"content": "service:\n  api_key: " + key + "\n"}, "generic_assignment", "toolInput.content", key},
		{"token in JSON", map[string]any{"body": `{"token": "` + key + `"}`}, "generic_assignment", "toolInput.body", key},
		{"by key name", map[string]any{"db": map[string]any{"password": pw}}, "generic_assignment", "toolInput.db.password", pw},
		{"word", cmd("mysql --password=changeme"), "", "", ""},
		{"placeholder", cmd("mysql --password=${DB_PASSWORD}"), "", "", ""},
		{"short", cmd("password=ab12"), "", "", ""},
		{"repeated", cmd("password=aaaaaaaaaaaa"), "", "", ""},
		{"prose", cmd("echo 'reset your password: use the form'"), "", "", ""},
		// Only the chosen kinds run.
		{"other kinds off", cmd("echo " + fake("AKIA", upperNum, 16)), "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) { checkSecret(t, judge(t, h, tc.input), tc) })
	}
}

func TestSecretGuardOptions(t *testing.T) {
	example := "AKIA" + "IOSFODNN7EXAMPLE"
	real := fake("AKIA", upperNum, 16)
	ghp := fake("ghp_", alnum, 36)

	h := newSecretGuard(t, map[string]any{"allow": []any{"EXAMPLE$"}})
	checkSecret(t, judge(t, h, cmd("aws --key "+example)), secretCase{})
	// An allowed match does not hide another one in the same value.
	checkSecret(t, judge(t, h, cmd("aws --key "+example+" --other "+real)),
		secretCase{kind: "aws_access_key_id", where: "toolInput.command", secret: real})

	h = newSecretGuard(t, map[string]any{"fields": []any{"command", "toolInput.env.TOKEN"}})
	checkSecret(t, judge(t, h, map[string]any{"description": "uses " + ghp}), secretCase{})
	checkSecret(t, judge(t, h, map[string]any{"env": map[string]any{"TOKEN": ghp}}),
		secretCase{kind: "github_token", where: "toolInput.env.TOKEN", secret: ghp})
	checkSecret(t, judge(t, h, cmd("echo "+ghp)), secretCase{kind: "github_token", where: "toolInput.command", secret: ghp})

	h = newSecretGuard(t, map[string]any{"kinds": []any{"jwt", "github_token"}})
	checkSecret(t, judge(t, h, cmd("echo "+real)), secretCase{})
	checkSecret(t, judge(t, h, cmd("echo "+ghp)), secretCase{kind: "github_token", where: "toolInput.command"})
}

func TestSecretGuardSizeCap(t *testing.T) {
	h := newSecretGuard(t, map[string]any{"max_bytes": 100})
	// The budget covers every string together, keys included.
	for name, tc := range map[string]struct {
		input   map[string]any
		blocked bool
	}{
		"under":            {map[string]any{"a": strings.Repeat("x", 90)}, false},
		"one value over":   {map[string]any{"a": strings.Repeat("x", 101)}, true},
		"many values over": {map[string]any{"a": strings.Repeat("x", 60), "b": strings.Repeat("y", 60)}, true},
		"keys count":       {map[string]any{strings.Repeat("k", 60): strings.Repeat("y", 60)}, true},
	} {
		res := judge(t, h, tc.input)
		if (res.Decision == hooks.Block) != tc.blocked {
			t.Errorf("%s: %s %q", name, res.Decision, res.Reason)
		}
		if tc.blocked && !strings.Contains(res.Reason, "not scanned") {
			t.Errorf("%s: reason %q", name, res.Reason)
		}
	}
}

func TestSecretGuardParams(t *testing.T) {
	for name, with := range map[string]map[string]any{
		"unknown kind":  {"kinds": []any{"aws"}},
		"empty kinds":   {"kinds": []any{}},
		"bad allow":     {"allow": []any{"("}},
		"bad field":     {"fields": []any{"a..b"}},
		"max_bytes 0":   {"max_bytes": 0},
		"unknown key":   {"kind": []any{"jwt"}},
		"wrong type":    {"kinds": "jwt"},
		"allow not str": {"allow": []any{map[string]any{"re": "x"}}},
	} {
		if _, err := NewSecretGuard(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: with}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewSecretGuard(hooks.BuiltinConfig{Event: hooks.PostToolUse}); err == nil {
		t.Error("accepted on post_tool_use")
	}
	// Every kind can be chosen by the name it is reported with.
	for _, k := range SecretKinds() {
		if _, err := NewSecretGuard(hooks.BuiltinConfig{Event: hooks.PreToolUse, With: map[string]any{"kinds": []any{k}}}); err != nil {
			t.Errorf("kind %s: %v", k, err)
		}
	}
}

func TestFoldedHints(t *testing.T) {
	// aws_secret_access_key's name is matched in any ASCII case, and
	// only in ASCII, as its hint is: a long ſ is not an s.
	secret := fake("", base64Std, 40)
	h := newSecretGuard(t, map[string]any{"kinds": []any{"aws_secret_access_key"}})
	for name, blocked := range map[string]bool{
		"aws_secret_access_key=":  true,
		"AWS_SECRET_ACCESS_KEY=":  true,
		"Aws_SeCrEt_Access_Key=":  true,
		"SecretAccessKey: ":       true,
		"aws_ſecret_access_key=":  false,
		"aws_secre_t_access_key=": false,
	} {
		res := judge(t, h, cmd(name+secret+"\u017f")) // ſ ends the value
		if (res.Decision == hooks.Block) != blocked {
			t.Errorf("%q: %s", name, res.Decision)
		}
	}
}

func TestSecretGuardThroughTheEngine(t *testing.T) {
	e := compileOne(t, hooks.Spec{
		ID: "no-secrets", Event: hooks.PreToolUse, Trusted: true,
		Handler: hooks.HandlerSpec{Type: "builtin", Name: SecretGuardName, With: map[string]any{"kinds": []any{"github_token"}}},
	}, hooks.Deps{})
	ghp := fake("ghp_", alnum, 36)
	out := e.Dispatch(context.Background(), &hooks.Event{Event: hooks.PreToolUse, ToolName: "exec", ToolInput: cmd("echo " + ghp)})
	if !out.Blocked() || strings.Contains(out.Reason, ghp) || !strings.Contains(out.Reason, "github_token") {
		t.Fatalf("%+v", out)
	}
}
