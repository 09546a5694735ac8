// The official `openai` npm package as the agent, on chat completions,
// read the three ways agents read it. The cases and the stack come from
// e2e/node_test.go; see lib/harness.mjs.

import OpenAI from 'openai';

import { defaultPrompt, describeError, newOutcome, runCases } from './lib/harness.mjs';

function client(base) {
  return new OpenAI({ apiKey: 'sk-client-canary', baseURL: `${base}/v1`, maxRetries: 0, timeout: 30_000 });
}

function params(kase) {
  return { model: kase.model, messages: [{ role: 'user', content: kase.prompt || defaultPrompt }] };
}

/**
 * stream: create({stream: true}) and a for-await over the chunks, putting
 * tool-call deltas together as agents do: by index when there is one, else
 * a delta with a new id starts a new call.
 */
async function stream(base, kase) {
  const out = newOutcome();
  const byKey = new Map();
  try {
    const chunks = await client(base).chat.completions.create({ ...params(kase), stream: true });
    for await (const chunk of chunks) {
      if (chunk.usage) out.usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta ?? {};
        if (typeof delta.content === 'string' && delta.content !== '') {
          out.content += delta.content;
          out.order.push('text');
        }
        if (choice.finish_reason) out.finish.push(choice.finish_reason);
        for (const tc of delta.tool_calls ?? []) {
          out.order.push('call');
          const key = tc.index ?? '';
          let pos = byKey.get(key);
          if (pos === undefined || (key === '' && tc.id && tc.id !== out.toolCalls[pos].id)) {
            out.toolCalls.push({ index: tc.index ?? null, id: '', name: '', arguments: '' });
            pos = out.toolCalls.length - 1;
            byKey.set(key, pos);
          }
          const call = out.toolCalls[pos];
          if (tc.id) call.id = tc.id;
          if (tc.function?.name) call.name = tc.function.name;
          if (typeof tc.function?.arguments === 'string') call.arguments += tc.function.arguments;
        }
      }
    }
  } catch (err) {
    out.error = describeError(err);
  }
  return out;
}

/** helper: the SDK's own accumulator, chat.completions.stream() and finalChatCompletion(). */
async function helper(base, kase) {
  const out = newOutcome();
  try {
    const runner = client(base).chat.completions.stream(params(kase));
    runner.on('chunk', (chunk) => {
      if (chunk.usage) out.usage = chunk.usage;
    });
    runner.on('content.delta', () => out.order.push('text'));
    runner.on('tool_calls.function.arguments.delta', () => out.order.push('call'));
    fromCompletion(out, await runner.finalChatCompletion());
  } catch (err) {
    out.error = describeError(err);
  }
  return out;
}

/** plain: a non-streamed create(). */
async function plain(base, kase) {
  const out = newOutcome();
  try {
    fromCompletion(out, await client(base).chat.completions.create(params(kase)));
  } catch (err) {
    out.error = describeError(err);
  }
  return out;
}

function fromCompletion(out, completion) {
  out.usage ??= completion.usage ?? null;
  for (const choice of completion.choices ?? []) {
    out.content += choice.message?.content ?? '';
    if (choice.finish_reason) out.finish.push(choice.finish_reason);
    const calls = choice.message?.tool_calls ?? [];
    // A for loop, not map: the SDK's array can have holes, and a hole must
    // show as one rather than vanish.
    for (let i = 0; i < calls.length; i++) {
      const tc = calls[i];
      out.toolCalls.push(tc ? { index: i, id: tc.id ?? '', name: tc.function?.name ?? '', arguments: tc.function?.arguments ?? '' } : null);
    }
  }
}

runCases('openai', { stream, helper, plain });
