package channels

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds on what a card shows. Slack's plain-text header takes 150
// characters and a message 40,000 in all; Feishu cards are capped near
// 30 KB (and CJK text takes 3 bytes a character). These keep a card well
// inside every platform's limits.
const (
	maxTitleChars = 150
	maxLabelChars = 100
	maxValueChars = 2900 // one field
	maxCardChars  = 8000 // all values together
	minValueChars = 40   // what a field keeps once the card's budget is spent
	maxFields     = 20
	maxTextChars  = 2900
	maxApprovalID = 128
	defaultTitle  = "Approval required"
	approveLabel  = "Approve"
	rejectLabel   = "Reject"
	markerChars   = 16 // room kept for the cut marker, beside its digits
)

// clip cuts s to at most n characters, ending a cut string with a marker
// that says how much was removed, so an approver knows they saw a part.
func clip(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	keep := n - markerChars - len(strconv.Itoa(total))
	if keep < 0 {
		keep = 0
	}
	i, count := 0, 0
	for i < len(s) && count < keep {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i] + "… (cut " + strconv.Itoa(total-count) + " chars)"
}

// checkApprovalID refuses ids that could not travel safely in a button's
// value or a callback.
func checkApprovalID(id string) error {
	if id == "" {
		return errors.New("approval id is empty")
	}
	if len(id) > maxApprovalID {
		return errors.New("approval id longer than 128 characters")
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '_', c == '.', c == ':':
		default:
			return errors.New("approval id has a character outside [A-Za-z0-9._:-]")
		}
	}
	return nil
}

// normalizeCard checks the id, fills the default title and clips every
// string to the shared bounds; fields are kept in order, so the first ones
// (tool, session) keep their full text when a long preview has to shrink.
func normalizeCard(c Card) (Card, error) {
	if err := checkApprovalID(c.ApprovalID); err != nil {
		return Card{}, err
	}
	out := Card{ApprovalID: c.ApprovalID, Title: clip(strings.TrimSpace(c.Title), maxTitleChars)}
	if out.Title == "" {
		out.Title = defaultTitle
	}
	fields := c.Fields
	if len(fields) > maxFields {
		fields = fields[:maxFields]
	}
	out.Fields = make([]Field, 0, len(fields))
	budget := maxCardChars
	for _, f := range fields {
		limit := min(maxValueChars, max(budget, minValueChars))
		v := clip(f.Value, limit)
		budget -= utf8.RuneCountInString(v)
		out.Fields = append(out.Fields, Field{Label: clip(f.Label, maxLabelChars), Value: v})
	}
	return out, nil
}

// slackEscape escapes the three characters Slack's mrkdwn treats as
// control characters, so that fallback text cannot mention a group or
// build a link.
func slackEscape(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}
