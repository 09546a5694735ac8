// The differential corpus (oracle-corpus/, written by the Go package
// oracle from the shared recordings, one folder per mutation class) read
// through hookgate by the official Node SDKs. hookgate blocks every tool
// call, so any call an SDK reads, name or arguments, got past it. Driven by
// e2e/oracle_node_test.go, which serves each file from the mock and passes:
//
//   HOOKGATE_BASE_URL       hookgate with an openai upstream (chat, Responses)
//   HOOKGATE_ANTHROPIC_URL  hookgate with an anthropic upstream (Messages)
//   HOOKGATE_CASES          [{name, class, api, model, knownFailOpen}]
//
// A case whose class is still a known fail-open (oracle.KnownFailOpen) and
// leaks is skipped with the reason; an error the SDK raises is a refusal
// and passes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

import { describeError } from './lib/harness.mjs';

const prompt = 'run it';

function openai() {
  return new OpenAI({ apiKey: 'sk-oracle', baseURL: `${process.env.HOOKGATE_BASE_URL}/v1`, maxRetries: 0, timeout: 20_000 });
}

function anthropic() {
  return new Anthropic({ apiKey: 'sk-ant-oracle', baseURL: process.env.HOOKGATE_ANTHROPIC_URL, maxRetries: 0, timeout: 20_000 });
}

/** A reading: the calls an SDK gave the agent, and what it raised. */
function newReading() {
  return { calls: [], error: null };
}

function add(r, where, name, args) {
  if (typeof args !== 'string') args = args == null ? '' : JSON.stringify(args);
  if (args === '{}' || args === 'null') args = '';
  if (!name && !args) return;
  r.calls.push({ where, name: name ?? '', args });
}

async function reading(fn) {
  const r = newReading();
  try {
    await fn(r);
  } catch (err) {
    r.error = describeError(err);
  }
  return r;
}

function chatMessage(r, where, m) {
  for (const tc of m?.tool_calls ?? []) {
    if (!tc) continue;
    add(r, `${where}.tool_calls.function`, tc.function?.name, tc.function?.arguments);
    add(r, `${where}.tool_calls.custom`, tc.custom?.name, tc.custom?.input);
  }
  if (m?.function_call) add(r, `${where}.function_call`, m.function_call.name, m.function_call.arguments);
}

function responseOutput(r, where, output) {
  for (const it of output ?? []) {
    if (!it || it.type === 'message' || it.type === 'reasoning') continue;
    add(r, `${where}(${it.type})`, it.name, it.arguments ?? it.input);
  }
}

function messageContent(r, where, content) {
  for (const b of content ?? []) {
    if (!b || b.type === 'text' || b.type === 'thinking' || b.type === 'redacted_thinking') continue;
    add(r, `${where}(${b.type})`, b.name, b.input);
  }
}

const readers = {
  'chat-sse': {
    stream: (model) => reading(async (r) => {
      const chunks = await openai().chat.completions.create({ model, messages: [{ role: 'user', content: prompt }], stream: true });
      for await (const chunk of chunks) {
        for (const ch of chunk.choices ?? []) {
          chatMessage(r, 'delta', ch.delta);
          if (ch.message) chatMessage(r, 'chunk.message', ch.message);
        }
      }
    }),
    helper: (model) => reading(async (r) => {
      const runner = openai().chat.completions.stream({ model, messages: [{ role: 'user', content: prompt }] });
      const done = await runner.finalChatCompletion();
      for (const ch of done.choices ?? []) chatMessage(r, 'finalChatCompletion', ch.message);
    }),
  },
  'chat-json': {
    plain: (model) => reading(async (r) => {
      const done = await openai().chat.completions.create({ model, messages: [{ role: 'user', content: prompt }] });
      for (const ch of done.choices ?? []) chatMessage(r, 'message', ch.message);
    }),
  },
  'responses-sse': {
    stream: (model) => reading(async (r) => {
      const events = await openai().responses.create({ model, input: prompt, stream: true });
      for await (const ev of events) {
        if (ev.type === 'response.output_item.added' || ev.type === 'response.output_item.done') responseOutput(r, `${ev.type}.item`, [ev.item]);
        if (ev.response) responseOutput(r, `${ev.type}.response.output`, ev.response.output);
        if (ev.type === 'response.function_call_arguments.delta') add(r, ev.type, '', ev.delta);
        if (ev.type === 'response.function_call_arguments.done') add(r, ev.type, ev.name, ev.arguments);
      }
    }),
    helper: (model) => reading(async (r) => {
      const runner = openai().responses.stream({ model, input: prompt });
      responseOutput(r, 'finalResponse.output', (await runner.finalResponse()).output);
    }),
  },
  'responses-json': {
    plain: (model) => reading(async (r) => {
      responseOutput(r, 'output', (await openai().responses.create({ model, input: prompt })).output);
    }),
  },
  'messages-sse': {
    stream: (model) => reading(async (r) => {
      const events = await anthropic().messages.create({ model, max_tokens: 1024, messages: [{ role: 'user', content: prompt }], stream: true });
      for await (const ev of events) {
        if (ev.type === 'message_start') messageContent(r, 'message_start.content', ev.message?.content);
        if (ev.type === 'content_block_start') messageContent(r, 'content_block_start', [ev.content_block]);
        if (ev.type === 'content_block_delta' && ev.delta?.type === 'input_json_delta') add(r, 'input_json_delta', '', ev.delta.partial_json);
      }
    }),
    helper: (model) => reading(async (r) => {
      const runner = anthropic().messages.stream({ model, max_tokens: 1024, messages: [{ role: 'user', content: prompt }] });
      messageContent(r, 'finalMessage.content', (await runner.finalMessage()).content);
    }),
  },
  'messages-json': {
    plain: (model) => reading(async (r) => {
      messageContent(r, 'content', (await anthropic().messages.create({ model, max_tokens: 1024, messages: [{ role: 'user', content: prompt }] })).content);
    }),
  },
};

const file = process.env.HOOKGATE_CASES;
if (!file) {
  test('oracle corpus: driven by e2e/oracle_node_test.go (go test ./e2e -run NodeOracle)', { skip: 'HOOKGATE_CASES is not set' }, () => {});
} else {
  for (const kase of JSON.parse(readFileSync(file, 'utf8'))) {
    test(kase.name, async (t) => {
      const byName = readers[kase.api];
      assert.ok(byName, `no readers for api ${kase.api}`);
      for (const [name, read] of Object.entries(byName)) {
        await t.test(name, async (t) => {
          const r = await read(kase.model);
          if (r.error) t.diagnostic(`the SDK raised: ${r.error}`);
          if (r.calls.length === 0) return;
          const seen = r.calls.map((c) => `${c.where} name=${JSON.stringify(c.name)} args=${JSON.stringify(c.args)}`).join('; ');
          if (kase.knownFailOpen) {
            t.skip(`KNOWN FAIL-OPEN until ${kase.knownFailOpen}: class ${kase.class}: ${seen}`);
            return;
          }
          assert.fail(`a blocked call reached the agent through hookgate: ${seen}`);
        });
      }
    });
  }
}
