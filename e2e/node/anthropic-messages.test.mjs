// The official `@anthropic-ai/sdk` npm package as the agent, on the
// Messages API, read the three ways agents read it. The cases and the
// stack come from e2e/messages_node_test.go; see lib/harness.mjs.
//
// An outcome's content is the text of the text blocks, concatenated; its
// tool calls are the tool_use blocks ({index: the block's index, id, name,
// arguments: the input as JSON text}); finish holds the stop_reason; usage
// is the message's usage; lastText the last block's text, when the last
// block is text (null otherwise).

import Anthropic from '@anthropic-ai/sdk';

import { defaultPrompt, describeError, newOutcome, runCases } from './lib/harness.mjs';

function client(base) {
  return new Anthropic({ apiKey: 'sk-ant-client-canary', baseURL: base, maxRetries: 0, timeout: 30_000 });
}

function params(kase) {
  return { model: kase.model, max_tokens: 1024, messages: [{ role: 'user', content: kase.prompt || defaultPrompt }] };
}

/**
 * stream: create({stream: true}) and a for-await over the raw events,
 * putting blocks together as agents do: by the event's index.
 */
async function stream(base, kase) {
  const out = newOutcome();
  const blocks = [];
  let usage = null;
  try {
    const events = await client(base).messages.create({ ...params(kase), stream: true });
    for await (const ev of events) {
      switch (ev.type) {
        case 'message_start':
          usage = { ...ev.message.usage };
          break;
        case 'content_block_start':
          if (ev.index !== blocks.length) throw new Error(`block ${ev.index} started after ${blocks.length} blocks`);
          blocks.push({ ...ev.content_block, json: '' });
          break;
        case 'content_block_delta': {
          const b = blocks[ev.index];
          if (!b) throw new Error(`delta for block ${ev.index}, which never started`);
          if (ev.delta.type === 'text_delta') {
            b.text += ev.delta.text;
            out.order.push('text');
          } else if (ev.delta.type === 'input_json_delta') {
            b.json += ev.delta.partial_json;
            out.order.push('call');
          }
          break;
        }
        case 'message_delta':
          if (ev.delta.stop_reason) out.finish.push(ev.delta.stop_reason);
          usage = { ...usage, ...ev.usage };
          break;
      }
    }
    out.usage = usage;
    blocks.forEach((b, index) => {
      if (b.type === 'text') out.content += b.text;
      if (b.type === 'tool_use') out.toolCalls.push({ index, id: b.id, name: b.name, arguments: b.json || JSON.stringify(b.input ?? {}) });
    });
    out.lastText = lastTextOf(blocks);
  } catch (err) {
    out.error = describeError(err);
  }
  return out;
}

/** helper: the SDK's own accumulator, messages.stream() and finalMessage(). */
async function helper(base, kase) {
  const out = newOutcome();
  try {
    const runner = client(base).messages.stream(params(kase));
    runner.on('text', () => out.order.push('text'));
    runner.on('inputJson', () => out.order.push('call'));
    fromMessage(out, await runner.finalMessage());
  } catch (err) {
    out.error = describeError(err);
  }
  return out;
}

/** plain: a non-streamed create(). */
async function plain(base, kase) {
  const out = newOutcome();
  try {
    fromMessage(out, await client(base).messages.create(params(kase)));
  } catch (err) {
    out.error = describeError(err);
  }
  return out;
}

function fromMessage(out, message) {
  out.usage = message.usage ?? null;
  if (message.stop_reason) out.finish.push(message.stop_reason);
  (message.content ?? []).forEach((b, index) => {
    if (b.type === 'text') out.content += b.text;
    if (b.type === 'tool_use') out.toolCalls.push({ index, id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) });
  });
  out.lastText = lastTextOf(message.content ?? []);
}

/** The last block's text, when the last block is text. */
function lastTextOf(blocks) {
  const last = blocks[blocks.length - 1];
  return last?.type === 'text' ? last.text : null;
}

runCases('anthropic', { stream, helper, plain });
