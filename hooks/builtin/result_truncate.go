package builtin

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/hookgate/hookgate/hooks"
)

// ResultTruncateName is the registry name of the result_truncate built-in.
const ResultTruncateName = "result_truncate"

// Defaults and bounds of result_truncate.
const (
	// DefaultTruncateMaxChars is max_chars when the entry does not set it.
	DefaultTruncateMaxChars = 8000
	// minTruncateMaxChars keeps room for the marker and some text on
	// either side of it.
	minTruncateMaxChars = 100
)

// truncateParams are result_truncate's `with:` parameters.
//
//	with:
//	  max_chars: 8000     # longest result passed on, in characters (runes), marker included
//	  head_ratio: 0.5     # share of the kept characters taken from the start (0..1)
//
// The hook must be trusted and allowed to rewrite the result: the operator
// writes `allow_mutation: [toolResult]` on the entry, or the engine strips
// the rewrite (and runs the hook as an observer whose output is unused).
type truncateParams struct {
	MaxChars  *int     `json:"max_chars"`
	HeadRatio *float64 `json:"head_ratio"`
}

// resultTruncate cuts long tool results to their head and tail.
type resultTruncate struct {
	maxChars  int
	headRatio float64
}

// NewResultTruncate is the factory of result_truncate. It accepts trusted
// post_tool_use hooks only: an untrusted hook can never rewrite a result.
func NewResultTruncate(cfg hooks.BuiltinConfig) (hooks.Handler, error) {
	if err := onlyOn(ResultTruncateName, cfg, hooks.PostToolUse, "rewrites tool results"); err != nil {
		return nil, err
	}
	if !cfg.Trusted {
		return nil, errors.New("result_truncate rewrites tool results, which an untrusted (tenant) hook may never do: declare it in the operator's config with allow_mutation: [toolResult]")
	}
	var p truncateParams
	if err := hooks.DecodeWith(cfg.With, &p); err != nil {
		return nil, err
	}
	t := &resultTruncate{maxChars: DefaultTruncateMaxChars, headRatio: 0.5}
	var errs []error
	if p.MaxChars != nil {
		if *p.MaxChars < minTruncateMaxChars {
			errs = append(errs, fmt.Errorf("with.max_chars: %d is below %d (the marker alone takes ~40)", *p.MaxChars, minTruncateMaxChars))
		}
		t.maxChars = *p.MaxChars
	}
	if p.HeadRatio != nil {
		if r := *p.HeadRatio; r < 0 || r > 1 {
			errs = append(errs, fmt.Errorf("with.head_ratio: %v is not between 0 and 1", r))
		}
		t.headRatio = *p.HeadRatio
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return t, nil
}

// Handle replaces a result longer than max_chars with its head, a marker
// and its tail. The output depends on the result alone, so a resent
// history is cut the same way every time; a result already cut is short
// enough to pass unchanged.
func (t *resultTruncate) Handle(_ context.Context, ev *hooks.Event) (hooks.Result, error) {
	if ev.ToolResult == nil {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	out, cut := truncateMiddle(*ev.ToolResult, t.maxChars, t.headRatio)
	if !cut {
		return hooks.Result{Decision: hooks.Allow}, nil
	}
	return hooks.Result{Decision: hooks.Rewrite, UpdatedResult: &out}, nil
}

// truncateMiddle returns s unchanged when it has at most maxChars runes;
// otherwise exactly maxChars runes: a head, the marker and a tail, with
// headRatio of the kept runes in the head. Cuts fall on rune boundaries
// (a byte of invalid UTF-8 counts as one rune and is kept whole).
func truncateMiddle(s string, maxChars int, headRatio float64) (string, bool) {
	if len(s) <= maxChars { // bytes >= runes: short enough for certain
		return s, false
	}
	n := utf8.RuneCountInString(s)
	if n <= maxChars {
		return s, false
	}
	// The marker's length depends on the number it reports, which depends
	// on how much the marker leaves room for. Start from the widest number
	// possible (n); each pass can only shorten the marker, so it settles.
	ml := markerLen(n)
	for {
		next := markerLen(n - (maxChars - ml))
		if next == ml {
			break
		}
		ml = next
	}
	keep := maxChars - ml
	head := int(float64(keep) * headRatio)
	tail := keep - head
	removed := n - keep

	headEnd := runeOffset(s, head)
	tailStart := runeOffsetFromEnd(s, tail)
	b := make([]byte, 0, headEnd+(len(s)-tailStart)+ml+8)
	b = append(b, s[:headEnd]...)
	b = appendMarker(b, removed)
	b = append(b, s[tailStart:]...)
	return string(b), true
}

// The marker reads "\n…[hookgate: N characters removed]…\n".
const (
	markerOpen  = "\n…[hookgate: "
	markerClose = " characters removed]…\n"
)

func appendMarker(b []byte, removed int) []byte {
	b = append(b, markerOpen...)
	b = strconv.AppendInt(b, int64(removed), 10)
	return append(b, markerClose...)
}

// markerLen is the marker's length in runes for a given count.
func markerLen(removed int) int {
	return utf8.RuneCountInString(markerOpen) + len(strconv.Itoa(removed)) + utf8.RuneCountInString(markerClose)
}

// runeOffset is the byte offset after the first k runes of s.
func runeOffset(s string, k int) int {
	if k <= 0 {
		return 0
	}
	i := 0
	for off := range s {
		if i == k {
			return off
		}
		i++
	}
	return len(s)
}

// runeOffsetFromEnd is the byte offset where the last k runes of s begin.
func runeOffsetFromEnd(s string, k int) int {
	off := len(s)
	for ; k > 0 && off > 0; k-- {
		_, size := utf8.DecodeLastRuneInString(s[:off])
		off -= size
	}
	return off
}
