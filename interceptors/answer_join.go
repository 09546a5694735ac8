package interceptors

import (
	"context"
	"strings"
)

// What hookgate adds to an answer joins the answer's last text. Several
// agents show only the last text block or message item of an answer
// (Claude Code -p, codex exec, the Agents SDK's finalOutput), so a note or
// a disclaimer in a block of its own would hide the model's answer from
// the user, or the answer would hide the note. The Messages and Responses
// routes therefore hold back the end of the last text (its stop and done
// events) until they know no other block follows, and put the notes of the
// blocked calls and pre_response's text at its end; only an answer without
// any text gets one block (or item) of its own, carrying both.

// answerAdditions collects what hookgate adds to one answer: the notes of
// the calls it blocked, in order, then pre_response's text.
type answerAdditions struct {
	notes []string
}

// note records the note of a blocked call.
func (a *answerAdditions) note(text string) { a.notes = append(a.notes, text) }

// noteText is the notes, one per line.
func (a *answerAdditions) noteText() string { return strings.Join(a.notes, "\n") }

// shownWithNotes is the answer text as the agent is shown it once the
// notes have joined it: what pre_response and stop read.
func (a *answerAdditions) shownWithNotes(shown []byte) []byte {
	notes := a.noteText()
	if notes == "" {
		return shown
	}
	if len(shown) > 0 {
		shown = appendCapped(shown, []byte("\n\n"), maxAnswerText)
	}
	return appendCapped(shown, []byte(notes), maxAnswerText)
}

// joined returns the text to add: the notes, then the disclaimer, a blank
// line between them, and a blank line before them when they join a text
// that already says something (afterText).
func (a *answerAdditions) joined(disclaimer string, afterText bool) string {
	parts := make([]string, 0, 2)
	if notes := a.noteText(); notes != "" {
		parts = append(parts, notes)
	}
	if disclaimer != "" {
		parts = append(parts, disclaimer)
	}
	if len(parts) == 0 {
		return ""
	}
	out := strings.Join(parts, "\n\n")
	if afterText {
		out = "\n\n" + out
	}
	return out
}

// settleAnswer is the end of an answer every route shares: the notes join
// the text the agent was shown, and, where the answer may carry one
// (mayDisclaim: it ended as an answer, not in a failure) and is final (or
// for every answer, under pre_response_on_tool_calls), pre_response runs
// on it. It returns the text shown with the notes, and pre_response's
// text ("" when none or when it did not run).
func (l *agentLoop) settleAnswer(ctx context.Context, x *exchangeState, add *answerAdditions, shown []byte, final, mayDisclaim bool) ([]byte, string, error) {
	shown = add.shownWithNotes(shown)
	if !mayDisclaim || !final && !l.opts.PreResponseOnToolCalls {
		return shown, "", nil
	}
	disclaimer, err := l.preResponse(ctx, x, string(shown))
	if err != nil {
		return shown, "", err
	}
	return shown, disclaimer, nil
}
