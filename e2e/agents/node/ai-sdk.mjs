// ai-sdk.mjs runs one Vercel AI SDK (ai@7) tool loop headless, as a user's
// program would: generateText or streamText with a single `bash {command}`
// tool whose execute really runs the command in the current directory, and
// stopWhen stepCountIs(5). The first argument names the model's API:
// "chat" (openai.chat, chat completions), "responses" (openai.responses) or
// "anthropic" (Messages); the second "generate" or "stream"; the third is
// the prompt. The providers read their base URLs and keys from the
// environment (OPENAI_BASE_URL and OPENAI_API_KEY, ANTHROPIC_BASE_URL and
// ANTHROPIC_API_KEY). The final text, what the program's user sees, goes to
// stdout.
import { execSync } from 'node:child_process';
import { generateText, streamText, stepCountIs, tool } from 'ai';
import { openai } from '@ai-sdk/openai';
import { anthropic } from '@ai-sdk/anthropic';
import { z } from 'zod';

const [api, mode, prompt] = process.argv.slice(2);
const models = {
  chat: () => openai.chat(process.env.AGENT_MODEL || 'gpt-4.1'),
  responses: () => openai.responses(process.env.AGENT_MODEL || 'gpt-4.1'),
  anthropic: () => anthropic(process.env.AGENT_MODEL || 'claude-sonnet-4-5'),
};
if (!models[api] || (mode !== 'generate' && mode !== 'stream') || !prompt) {
  console.error('usage: node ai-sdk.mjs chat|responses|anthropic generate|stream PROMPT');
  process.exit(2);
}

// bash reports a failing command's output and status to the model instead of
// throwing, as a shell tool does.
const bash = tool({
  description: 'Run a shell command in the working directory and return its output.',
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }) => {
    process.stderr.write(`ai-sdk: bash ${JSON.stringify(command)}\n`);
    try {
      return execSync(command, { cwd: process.cwd(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 20000 });
    } catch (err) {
      return `exit status ${err.status}\n${err.stdout ?? ''}${err.stderr ?? ''}`;
    }
  },
});

const options = {
  model: models[api](),
  system: 'You are a coding agent. Use the bash tool to run shell commands.',
  prompt,
  tools: { bash },
  stopWhen: stepCountIs(5),
};
let text;
if (mode === 'generate') {
  text = (await generateText(options)).text;
} else {
  let failure;
  const result = streamText({ ...options, onError: ({ error }) => { failure = error; } });
  text = await result.text;
  if (failure) throw failure;
}
process.stdout.write(text + '\n');
