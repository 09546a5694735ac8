package hooks

import (
	"testing"

	"github.com/hookgate/hookgate/hooks/toolclass"
)

func TestCELShellCommands(t *testing.T) {
	ev := &Event{Event: PreToolUse, ToolName: "Bash", Tool: &toolclass.View{Class: toolclass.Shell, Command: "cd infra && sudo terraform destroy -auto-approve"}}
	for src, want := range map[string]bool{
		"shell.commands(tool.command).exists(c, c[0] == 'terraform' && 'destroy' in c)": true,
		"shell.commands(tool.command).size() == 2":                                      true,
		"shell.commands(tool.command)[0] == ['cd', 'infra']":                            true,
		"shell.commands('ls -la').exists(c, c[0] == 'terraform')":                       false,
		"shell.commands('').size() == 0":                                                true,
	} {
		c, err := compileCondition(src, DefaultCELCostLimit)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := c.eval(ev)
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", src, got, err, want)
		}
	}
	if _, err := compileCondition("shell.commands(1).size() > 0", DefaultCELCostLimit); err == nil {
		t.Error("shell.commands(int) compiled")
	}
}
