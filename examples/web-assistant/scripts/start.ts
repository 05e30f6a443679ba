/**
 * Starts the demo agent (server/assistant-agent.ts: no CORS) and the page — Vite's dev server with the
 * relay on /api/a2a (vite.config.ts), or with `--production` the built page (`vite build` first) and the
 * same relay in server/production.ts — and prints the link to open. The agent listens on a fixed port by
 * default (AGENT_PORT, 41241) so that tasks kept in the page's IndexedDB still find it after a restart.
 * Needs the packages built first (`npx --yes pnpm@10.34.8 build`): the page imports @a2a-tether/browser's dist.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { startAssistantAgent } from '../server/assistant-agent.js';
import { startProductionServer } from '../server/production.js';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(fileURLToPath(new URL('../../../packages/browser/dist/index.js', import.meta.url)))) {
  console.error('web-assistant: build the packages first: npx --yes pnpm@10.34.8 build');
  process.exit(1);
}
const production = process.argv.includes('--production');
const port = Number(process.env['PORT'] ?? 5173);

const agent = await startAssistantAgent({ port: Number(process.env['AGENT_PORT'] ?? 41241) });
process.env['AGENT_URL'] = agent.url; // vite.config.ts's relay reads it
let close: () => Promise<unknown>;
let page: string;
if (production) {
  const server = await startProductionServer(fileURLToPath(new URL('../dist', import.meta.url)), agent.url, port);
  page = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  close = () => new Promise((resolve) => server.close(resolve));
} else {
  const vite = await createServer({ root, logLevel: 'warn', server: { host: '127.0.0.1', port } });
  await vite.listen();
  page = vite.resolvedUrls?.local[0] ?? `http://127.0.0.1:${port}/`;
  close = () => vite.close();
}
console.log(`Demo agent (no CORS; reached through the relay at /api/a2a/assistant): ${agent.url}`);
console.log(`Open the chat: ${page}`);
console.log(`The task board (useTask / useTasks, every tab's tasks): ${page}tasks.html`);
console.log('Ask for a report; reload in the middle of the answer: it continues. Only Stop cancels. Ctrl+C stops.');

const stop = (): void => {
  void Promise.all([close(), agent.close()]).then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
