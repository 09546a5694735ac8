package providers

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// AppendToMessage returns a copy of body with text appended, as is, to the
// content of messages[pos] (which must exist): a string content is
// extended, an array of parts gains a text part, a null content becomes
// text. It re-applies context a hook added to an older user message when an
// agent resends its history.
func AppendToMessage(body []byte, pos int, text string) ([]byte, error) {
	const what = "append to message"
	if _, err := parseBody(body, what); err != nil {
		return nil, err
	}
	if !gjson.GetBytes(body, jpath("messages", pos)).IsObject() {
		return nil, fmt.Errorf("%s %d: %w", what, pos, ErrNotFound)
	}
	out, err := appendToContent(body, jpath("messages", pos, "content"), text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return detach(out, body), nil
}
