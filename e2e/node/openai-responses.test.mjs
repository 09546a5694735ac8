// The official `openai` npm package as the agent, on the Responses API
// (POST /v1/responses), read the three ways agents read it. The cases and
// the stack come from e2e/responses_node_test.go; see lib/harness.mjs.
//
// An outcome maps a response onto the harness's fields: content is the
// response's output_text, toolCalls its function_call items (id is the
// call_id), finish its status, usage its usage, lastText the last
// output_text part of the last message item (what the Agents SDK's
// finalOutput and codex exec show). Streamed readers also
// check what only a stream shows: sequence numbers that count up by one,
// and output_item.done items that agree with the final output. A
// violation is reported as the reader's error, which fails any case that
// does not expect one.

import OpenAI from 'openai';

import { defaultPrompt, describeError, newOutcome, runCases } from './lib/harness.mjs';

function client(base) {
  return new OpenAI({ apiKey: 'sk-client-canary', baseURL: `${base}/v1`, maxRetries: 0, timeout: 30_000 });
}

function params(kase) {
  return { model: kase.model, input: kase.prompt || defaultPrompt };
}

/** Fills an outcome from a final response object. */
function fromResponse(out, response) {
  out.content = response.output_text ?? textOf(response);
  if (response.status) out.finish.push(response.status);
  out.usage = response.usage ?? null;
  for (const item of response.output ?? []) {
    if (item.type === 'message') {
      const parts = (item.content ?? []).filter((p) => p.type === 'output_text');
      if (parts.length > 0) out.lastText = parts[parts.length - 1].text;
    }
    if (item.type === 'function_call') {
      out.toolCalls.push({ index: out.toolCalls.length, id: item.call_id ?? '', name: item.name ?? '', arguments: item.arguments ?? '' });
    }
  }
}

/** output_text as the SDK computes it, for a response object it did not build. */
function textOf(response) {
  let text = '';
  for (const item of response.output ?? []) {
    if (item.type !== 'message') continue;
    for (const part of item.content ?? []) {
      if (part.type === 'output_text') text += part.text;
    }
  }
  return text;
}

/** Checks of the stream itself; returns a description of the first violation, or null. */
class StreamChecks {
  constructor() {
    this.last = null;
    this.doneCalls = [];
    this.problem = null;
  }

  event(ev, out) {
    if (typeof ev.sequence_number === 'number') {
      if (this.last !== null && ev.sequence_number !== this.last + 1) {
        this.problem ??= `sequence_number ${ev.sequence_number} after ${this.last}`;
      }
      this.last = ev.sequence_number;
    }
    if (ev.type === 'response.output_text.delta') out.order.push('text');
    if (ev.type === 'response.function_call_arguments.delta') out.order.push('call');
    if (ev.type === 'response.output_item.done' && ev.item?.type === 'function_call') {
      this.doneCalls.push({ id: ev.item.call_id, name: ev.item.name, arguments: ev.item.arguments });
    }
  }

  end(out) {
    const final = out.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    if (out.error === null && JSON.stringify(final) !== JSON.stringify(this.doneCalls)) {
      this.problem ??= `the done items ${JSON.stringify(this.doneCalls)} and the final output ${JSON.stringify(final)} disagree`;
    }
    if (this.problem && out.error === null) out.error = `stream check: ${this.problem}`;
  }
}

/** stream: create({stream: true}) and a for-await over the events. */
async function stream(base, kase) {
  const out = newOutcome();
  const checks = new StreamChecks();
  let final = null;
  try {
    const events = await client(base).responses.create({ ...params(kase), stream: true });
    for await (const ev of events) {
      checks.event(ev, out);
      if (ev.type === 'response.completed' || ev.type === 'response.incomplete' || ev.type === 'response.failed') final = ev.response;
    }
    if (final === null) throw new Error('the stream ended without a final response');
    fromResponse(out, final);
  } catch (err) {
    out.error = describeError(err);
  }
  checks.end(out);
  return out;
}

/** helper: the SDK's own accumulator, responses.stream() and finalResponse(). */
async function helper(base, kase) {
  const out = newOutcome();
  const checks = new StreamChecks();
  try {
    const runner = client(base).responses.stream(params(kase));
    runner.on('event', (ev) => checks.event(ev, out));
    fromResponse(out, await runner.finalResponse());
  } catch (err) {
    out.error = describeError(err);
  }
  checks.end(out);
  return out;
}

/** plain: a non-streamed create(). */
async function plain(base, kase) {
  const out = newOutcome();
  try {
    fromResponse(out, await client(base).responses.create(params(kase)));
  } catch (err) {
    out.error = describeError(err);
  }
  return out;
}

runCases('openai-responses', { stream, helper, plain });
