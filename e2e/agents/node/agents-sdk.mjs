// agents-sdk.mjs runs one OpenAI Agents SDK (JS) agent headless, as a user's
// program would: an Agent with a single function tool `bash {command}` that
// really runs the command in the current directory, driven by run() on the
// API named by the first argument ("responses" or "chat_completions"),
// streamed or not as the second says ("stream" or "plain"). The prompt is
// the third argument. The client comes from the SDK's defaults,
// so OPENAI_BASE_URL and OPENAI_API_KEY point it at the model; tracing is
// off. The run's finalOutput, what the program's user sees, goes to stdout.
import { execSync } from 'node:child_process';
import { Agent, run, tool, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
import { z } from 'zod';

const [api, mode, prompt] = process.argv.slice(2);
if ((api !== 'responses' && api !== 'chat_completions') || (mode !== 'stream' && mode !== 'plain') || !prompt) {
  console.error('usage: node agents-sdk.mjs responses|chat_completions stream|plain PROMPT');
  process.exit(2);
}
setTracingDisabled(true);
setOpenAIAPI(api);

// bash reports a failing command's output and status to the model instead of
// throwing, as a shell tool does.
const bash = tool({
  name: 'bash',
  description: 'Run a shell command in the working directory and return its output.',
  parameters: z.object({ command: z.string() }),
  execute: async ({ command }) => {
    process.stderr.write(`agents-sdk: bash ${JSON.stringify(command)}\n`);
    try {
      return execSync(command, { cwd: process.cwd(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 20000 });
    } catch (err) {
      return `exit status ${err.status}\n${err.stdout ?? ''}${err.stderr ?? ''}`;
    }
  },
});

const agent = new Agent({
  name: 'hookgate-e2e',
  instructions: 'You are a coding agent. Use the bash tool to run shell commands.',
  model: process.env.AGENT_MODEL || 'gpt-4.1',
  tools: [bash],
});

const result = await run(agent, prompt, { maxTurns: 6, stream: mode === 'stream' });
if (mode === 'stream') {
  for await (const _event of result) {
    // Drain the events; the answer is read from finalOutput once complete.
  }
  await result.completed;
}
process.stdout.write(String(result.finalOutput ?? '') + '\n');
