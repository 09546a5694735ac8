package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTenantHooksNameOnlyTheTenantsChannels(t *testing.T) {
	acme := &Tenant{ID: "acme", Channels: []string{"acme-ops", "acme-oncall"}}
	lonely := &Tenant{ID: "lonely"}
	cases := []struct {
		name   string
		tenant *Tenant
		yaml   string
		want   string // "" = accepted
	}{
		{"notify own", acme, "- {id: n, event: stop, handler: {type: builtin, name: notify, with: {channel: acme-oncall, text: x}}}", ""},
		{"notify default", acme, "- {id: n, event: stop, handler: {type: builtin, name: notify, with: {text: x}}}", ""},
		{"notify another's", acme, "- {id: n, event: stop, handler: {type: builtin, name: notify, with: {channel: beta-ops, text: x}}}", `channel "beta-ops" is not one of tenant acme's channels`},
		{"approval the operator's", acme, "- {id: a, event: pre_tool_use, handler: {type: builtin, name: approval, with: {channel: ops}}}", `channel "ops" is not one of tenant acme's channels`},
		{"channel not a name", acme, "- {id: n, event: stop, handler: {type: builtin, name: notify, with: {channel: [acme-ops], text: x}}}", "want a channel name"},
		{"notify with no channel of its own", lonely, "- {id: n, event: stop, handler: {type: builtin, name: notify, with: {text: x}}}", "needs a channel of tenant lonely's own"},
		{"approval with no channel of its own", lonely, "- {id: a, event: pre_tool_use, handler: {type: builtin, name: approval}}", ""},
		{"send with no channel of its own", lonely, "- {id: s, event: pre_response, mode: send, handler: {type: script, source: 'function handle(e) { return {decision: \"allow\"}; }'}}", "mode send needs a channel"},
		{"send with its own", acme, "- {id: s, event: pre_response, mode: send, handler: {type: script, source: 'function handle(e) { return {decision: \"allow\"}; }'}}", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTenantHooks(tc.tenant, "tenant.yaml", t.TempDir(), []byte(tc.yaml))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestTenantFilesAreReadFromTheirFolderOnly(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "tenants")
	outside := filepath.Join(base, "host.txt")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(outside, "HOSTCANARY")
	write(filepath.Join(dir, "s", "ok.js"), "function handle(e) { return {decision: 'allow'}; }")
	write(filepath.Join(dir, "ctx.md"), "Be careful.")
	if err := os.Symlink(outside, filepath.Join(dir, "s", "out.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ok.js", filepath.Join(dir, "s", "in.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "s", "folder.js"), 0o700); err != nil {
		t.Fatal(err)
	}
	acme := &Tenant{ID: "acme"}
	script := func(file string) string {
		return "- {id: s, event: pre_tool_use, handler: {type: script, file: '" + file + "'}}"
	}
	refused := []string{
		script("../host.txt"),
		script(outside),
		script("s/../../host.txt"),
		script("s/out.js"),
		script("s/folder.js"),
		script("s/missing.js"),
		"- {id: c, event: session_start, handler: {type: builtin, name: inject_context, with: {file: ../host.txt}}}",
		"- {id: c, event: session_start, handler: {type: builtin, name: inject_context, with: {file: '" + outside + "'}}}",
	}
	for _, doc := range refused {
		_, err := ParseTenantHooks(acme, "acme.yaml", dir, []byte(doc))
		if err == nil {
			t.Fatalf("accepted %s", doc)
		}
		if strings.Contains(err.Error(), "HOSTCANARY") {
			t.Fatalf("the error quotes a host file: %v", err)
		}
	}
	for _, file := range []string{"s/ok.js", "s/in.js", "./s/../s/ok.js"} {
		specs, err := ParseTenantHooks(acme, "acme.yaml", dir, []byte(script(file)))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if h := specs[0].Handler; h.File != "" || !strings.Contains(h.Source, "function handle") {
			t.Fatalf("%s: the script was not read at load: %+v", file, h)
		}
	}
	specs, err := ParseTenantHooks(acme, "acme.yaml", dir, []byte("- {id: c, event: session_start, handler: {type: builtin, name: inject_context, with: {file: ctx.md}}}"))
	if err != nil {
		t.Fatal(err)
	}
	if w := specs[0].Handler.With; w["file"] != nil || w["text"] != "Be careful." {
		t.Fatalf("the context file was not read at load: %v", w)
	}
}
