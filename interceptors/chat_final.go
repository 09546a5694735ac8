package interceptors

import (
	"context"
	"errors"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookgate/hookgate/providers"
)

// errHookFailed ends a stream whose contributing hook failed: the answer
// must not finish cleanly without its mandated contribution.
var errHookFailed = errors.New("a contributing hook failed")

// emitFinish emits the event that finishes the given choices, once every
// held call is out: first the text pre_response appends to a final answer,
// then the finish itself, with finish_reason "stop" when every call of the
// choice was blocked. data is nil when the finish is [DONE] (a provider
// that never sets finish_reason); raw is nil when the event was held with
// tool calls and must be re-encoded without them.
func (s *chatStream) emitFinish(ctx context.Context, raw, data []byte, finish []int) error {
	out := data
	changed := raw == nil
	if raw == nil && data != nil {
		rest, meaningful, err := providers.StripToolCalls(data)
		if err != nil {
			return s.fail("hookgate_error", "hookgate could not re-encode a finishing chunk", err)
		}
		out = nil
		if meaningful {
			out = rest
		}
	}
	for _, idx := range finish {
		cs := s.choice(idx)
		if cs.blocked > 0 && cs.survived == 0 && s.shouldRetry(cs) {
			s.retry.deciding = true
			s.retry.choice = cs
			return nil
		}
		if len(cs.notes) > 0 {
			template := data
			if template == nil {
				template = s.template
			}
			if err := s.writeNote(cs, template, strings.Join(cs.notes, "")); err != nil {
				return err
			}
			cs.notes = nil
		}
		final := cs.survived == 0
		if final || s.x.chat.opts.PreResponseOnToolCalls {
			text, err := s.x.preResponse(ctx, string(cs.text))
			if err != nil {
				return s.fail("hook_failed", err.Error(), errHookFailed)
			}
			if text != "" {
				if len(cs.text) > 0 {
					text = "\n\n" + text
				}
				template := data
				if template == nil {
					template = s.template
				}
				chunk, err := providers.EncodeContentChunk(template, idx, text)
				if err != nil {
					return s.fail("hookgate_error", "hookgate could not encode appended text", err)
				}
				if err := s.write(providers.FrameSSEData(chunk)); err != nil {
					return err
				}
			}
		}
		if cs.blocked > 0 && cs.survived == 0 && out != nil {
			edited, err := providers.SetChunkFinishReason(out, idx, "stop")
			if err != nil {
				return s.fail("hookgate_error", "hookgate could not rewrite finish_reason", err)
			}
			out, changed = edited, true
		}
		if final {
			s.x.answered(ctx, string(cs.text))
		}
	}
	if !changed {
		return s.write(raw)
	}
	if out != nil {
		return s.write(providers.FrameSSEData(out))
	}
	return nil
}

// preResponse runs pre_response for a final answer (answer.go).
func (x *chatExchange) preResponse(ctx context.Context, answer string) (string, error) {
	return x.chat.preResponse(ctx, &x.exchangeState, answer)
}

// answered fires stop and subagent_stop for a final answer (answer.go).
func (x *chatExchange) answered(ctx context.Context, answer string) {
	x.chat.answered(ctx, x.id, answer)
}

func gjsonString(b []byte, path string) string { return gjson.GetBytes(b, path).String() }
