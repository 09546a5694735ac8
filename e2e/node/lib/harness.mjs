// The SDK-agnostic half of hookgate's Node end-to-end tests.
//
// e2e/node_test.go starts a mock upstream and hookgate, scripts the mock
// (it answers each request by the request's `model`), writes the cases of
// one scenario to a JSON file and runs one test file of this folder with:
//
//   HOOKGATE_BASE_URL  hookgate's root URL (no /v1)
//   HOOKGATE_MOCK_URL  the mock upstream's root URL, for direct reads
//   HOOKGATE_CASES     the cases file
//
// A test file is one SDK acting as the agent: it supplies readers (how an
// agent reads a response with that SDK) and calls runCases. Everything else
// (which responses, which policy, what the agent must end up with) comes
// from the Go side, so a new SDK is one new test file here.
//
// A case:
//   name      test name
//   sdk       which test file reads it ("openai", later "anthropic")
//   model     the key the mock answers by
//   prompt    the user message (a default when empty)
//   readers   names of the readers that read it, e.g. ["stream", "helper"]
//   direct    read it from the mock directly first, with the same reader;
//             when that read does not give the recorded calls (the SDK
//             cannot read the recording itself this way), the reader's
//             expectations are skipped, noted in the output
//   directGate "error" (default "calls"): skip only when the direct read
//             raised, for policies whose outcome has none of the
//             recording's calls left
//   recorded  the calls the upstream's response carries (for direct reads)
//   todo      a known hookgate bug this case shows: the case runs and
//             reports, as a node:test todo, without failing the suite
//   expect    what the agent must have assembled through hookgate:
//     error            true: the SDK must raise (a truncated stream)
//     sameAsDirect     content, calls and finish equal the direct read's
//     content          exact text
//     contentPrefix, contentIncludes[], contentExcludes[]
//     toolCalls        [{id, name, args (parsed, deep-equal), argumentsText?}]
//                      compared exactly (an empty id matches any: SDKs
//                      mint ids); absent means "no check", [] none
//     contiguousIndex  the calls' wire indices are 0..n-1
//     finish           every finish reason the agent saw is this one (at least one)
//     usage            the last usage object the response carried, deep-equal
//     textBeforeCalls  the last text delta came before the first call delta
//
// A reader is async (baseURL, kase) => outcome, where an outcome is
//   {content, toolCalls: [{index, id, name, arguments}], finish: [], usage, order: [], error}
// where order lists 'text' and 'call' per delta as they came, usage is the
// last non-null usage seen, and error is null or a one-line description
// of what the SDK raised.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

export const defaultPrompt = 'What is the weather in Paris?';

/** A fresh outcome for a reader to fill. */
export function newOutcome() {
  return { content: '', lastText: null, toolCalls: [], finish: [], usage: null, order: [], error: null };
}

/** One line saying what an SDK raised. */
export function describeError(err) {
  const name = err?.constructor?.name ?? 'Error';
  const status = err?.status ? ` (status ${err.status})` : '';
  return `${name}${status}: ${String(err?.message ?? err).split('\n')[0]}`;
}

/** The cases of this run meant for sdk; null when not driven from Go. */
function loadCases(sdk) {
  const file = process.env.HOOKGATE_CASES;
  if (!file) return null;
  const all = JSON.parse(readFileSync(file, 'utf8'));
  return all.filter((c) => c.sdk === sdk);
}

function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set; these tests are driven by e2e/node_test.go`);
  return v;
}

/**
 * Defines one test per case for sdk, each with one subtest per reader.
 * readers maps the names used by the cases to reader functions.
 */
export function runCases(sdk, readers) {
  const cases = loadCases(sdk);
  if (cases === null) {
    test(`${sdk}: driven by e2e/node_test.go (go test ./e2e -run Node)`, { skip: 'HOOKGATE_CASES is not set' }, () => {});
    return;
  }
  const base = env('HOOKGATE_BASE_URL');
  const mock = env('HOOKGATE_MOCK_URL');
  for (const kase of cases) {
    test(kase.name, { todo: kase.todo || undefined }, async (t) => {
      for (const name of kase.readers) {
        const read = readers[name];
        await t.test(name, { todo: kase.todo || undefined }, async (t) => {
          assert.ok(read, `the ${sdk} test file has no reader named ${name}`);
          await checkCase(t, read, base, mock, kase);
        });
      }
    });
  }
}

async function checkCase(t, read, base, mock, kase) {
  const want = kase.expect ?? {};
  if (kase.direct) {
    const direct = await read(mock, kase);
    const proxied = await read(base, kase);
    if (want.sameAsDirect) {
      assert.deepEqual(comparable(proxied), comparable(direct),
        `through hookgate the agent assembled something else than directly\nproxied: ${show(proxied)}\ndirect:  ${show(direct)}`);
    }
    const why = kase.directGate === 'error'
      ? (direct.error ? `it raised ${direct.error}` : null)
      : unreadable(direct, kase.recorded ?? []);
    if (why) {
      // The SDK cannot read the recording itself this way; hookgate cannot
      // be asked to do better, so only the comparison above holds.
      t.diagnostic(`the SDK cannot read this recording directly with this reader (${why}); expectations not checked`);
      if (!want.sameAsDirect) t.skip(why);
      return;
    }
    expectOutcome(proxied, want);
    return;
  }
  const got = await read(base, kase);
  if (want.error && got.error) t.diagnostic(`raised, as it must: ${got.error}`);
  expectOutcome(got, want);
}

/** Why a direct read did not produce the recorded calls, or null. */
function unreadable(direct, recorded) {
  if (direct.error) return `it raised ${direct.error}`;
  try {
    expectCalls(direct, recorded);
    return null;
  } catch (err) {
    return `it assembled ${direct.toolCalls.length} calls that differ from the recording's ${recorded.length}`;
  }
}

/** An outcome without what legitimately differs between two base URLs. */
function comparable(o) {
  return { content: o.content, toolCalls: o.toolCalls, finish: o.finish, usage: o.usage, raised: o.error !== null };
}

function show(o) {
  return JSON.stringify(o);
}

/** Asserts that an outcome is what want says. */
export function expectOutcome(got, want) {
  if (want.error) {
    assert.ok(got.error, `the SDK ended cleanly where it must raise: ${show(got)}`);
    return;
  }
  assert.equal(got.error, null, `the SDK raised: ${show(got)}`);
  if (want.content != null) assert.equal(got.content, want.content, 'content');
  if (want.contentPrefix) {
    assert.ok(got.content.startsWith(want.contentPrefix), `content ${JSON.stringify(got.content)} does not start with ${JSON.stringify(want.contentPrefix)}`);
  }
  for (const s of want.contentIncludes ?? []) {
    assert.ok(got.content.includes(s), `content ${JSON.stringify(got.content)} lacks ${JSON.stringify(s)}`);
  }
  for (const s of want.contentExcludes ?? []) {
    assert.ok(!got.content.includes(s), `content ${JSON.stringify(got.content)} has ${JSON.stringify(s)}`);
  }
  // The last text block or message item alone is what agents such as
  // Claude Code -p, codex exec and the Agents SDK's finalOutput show.
  if (want.lastText != null) assert.equal(got.lastText, want.lastText, `the last text: ${show(got)}`);
  for (const s of want.lastTextIncludes ?? []) {
    assert.ok((got.lastText ?? '').includes(s), `the last text ${JSON.stringify(got.lastText)} lacks ${JSON.stringify(s)}`);
  }
  if (want.toolCalls) expectCalls(got, want.toolCalls);
  if (want.contiguousIndex) {
    assert.deepEqual(got.toolCalls.map((c) => c?.index), got.toolCalls.map((_, i) => i), `indices are not contiguous: ${show(got)}`);
  }
  if (want.finish) {
    assert.ok(got.finish.length > 0, `no finish reason: ${show(got)}`);
    for (const f of got.finish) assert.equal(f, want.finish, `finish reasons ${JSON.stringify(got.finish)}`);
  }
  if (want.usage !== undefined) assert.deepEqual(got.usage, want.usage, `usage: ${show(got)}`);
  if (want.textBeforeCalls) {
    const lastText = got.order.lastIndexOf('text');
    const firstCall = got.order.indexOf('call');
    assert.ok(lastText >= 0 && firstCall >= 0 && lastText < firstCall,
      `text (last at delta ${lastText}) did not precede the calls (first at delta ${firstCall}): ${got.order.join(',')}`);
  }
}

function expectCalls(got, want) {
  const calls = got.toolCalls;
  assert.equal(calls.length, want.length, `got ${calls.length} tool calls, want ${want.length}: ${show(got)}`);
  want.forEach((w, i) => {
    const c = calls[i];
    assert.ok(c, `call ${i} is a hole in the SDK's array: ${show(got)}`);
    // The upstream sent no id: the stream helper mints one, and that is
    // the SDK's business.
    if (w.id !== '') assert.equal(c.id, w.id, `call ${i} id`);
    assert.equal(c.name, w.name, `call ${i} name`);
    if (w.argumentsText != null) assert.equal(c.arguments, w.argumentsText, `call ${i} arguments, byte for byte`);
    let args;
    try {
      args = c.arguments.trim() === '' ? {} : JSON.parse(c.arguments);
    } catch {
      assert.fail(`call ${i} (${c.name}) arguments are not JSON: ${JSON.stringify(c.arguments)}`);
    }
    assert.deepEqual(args, w.args ?? {}, `call ${i} (${c.name}) arguments`);
  });
}
