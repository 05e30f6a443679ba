/**
 * Starts the testkit's fake A2A agent (CORS on) and Vite's dev server for the page, and prints the
 * link to open: the page gets the agent's URL as `?agent=`. The agent listens on a fixed port by
 * default (AGENT_PORT, 41241) so that tasks kept in the page's IndexedDB still find it after a restart.
 * Needs the packages built first (`npx --yes pnpm@10.34.8 build`): the page imports @a2a-tether/browser's dist.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestAgent } from '@a2a-tether/testkit';
import { createServer } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(fileURLToPath(new URL('../../../packages/browser/dist/index.js', import.meta.url)))) {
  console.error('web-assistant: build the packages first: npx --yes pnpm@10.34.8 build');
  process.exit(1);
}

const agent = await startTestAgent({ port: Number(process.env['AGENT_PORT'] ?? 41241) });
const vite = await createServer({ root, logLevel: 'warn', server: { host: '127.0.0.1', port: Number(process.env['PORT'] ?? 5173) } });
await vite.listen();
const page = vite.resolvedUrls?.local[0] ?? 'http://127.0.0.1:5173/';
console.log(`A2A test agent: ${agent.url}`);
console.log(`Open: ${page}?agent=${encodeURIComponent(agent.url)}`);
console.log(`The chat (useChat over A2A): ${page}chat.html?agent=${encodeURIComponent(agent.url)}`);
console.log("Try the sample prompts; reload the page in the middle of a long task: it resumes. Open it in more tabs: each lists every task and follows it over the connection of the tab that streams it. Ctrl+C stops.");

const stop = (): void => {
  void Promise.all([vite.close(), agent.close()]).then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
