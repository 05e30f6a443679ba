/**
 * docs/web-apps.md as a new user follows it, outside the workspace: `npm create vite@latest` (React + TS)
 * in a temporary folder, the workspace's packages installed from `pnpm pack` tarballs (core, browser,
 * react, ai-sdk, node; vite, react and the AI SDK from the registry), the guide's files copied out of the
 * Markdown as written (a2a-relay.ts, vite.config.ts, src/App.tsx — each block whose first line names the
 * file), `src/main.tsx` left as the template wrote it (StrictMode). Then Vite's dev server with the relay in
 * front of the official @a2a-js/sdk v1.0 server (no CORS), and in real Chromium:
 *   1. the answer streams;
 *   2. a pause's question shows, and the next message answers it: the task completes;
 *   3. a reload mid-answer: the same answer continues to its end; the agent got one message, the page sent
 *      no CancelTask;
 *   4. Stop: one CancelTask, the agent holds the task as canceled.
 * Needs the registry (npm create, npm install; without it: skipped with a warning, failed under CI=true)
 * and the packages built. Part of the example's `check` (also alone: `check:fresh`); ~30 s. Every wait is
 * bounded; any failure exits 1.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect as nodeConnect } from '@a2a-tether/node';
import { chromium, type Page } from 'playwright-core';
import type * as Vite from 'vite';
import { startOfficialV1Server } from '../../../packages/interop/src/official-v1-server.js';
import { check, CheckFailed, WAIT_MS } from './check-util.js';

const CHROMIUM = process.env['TETHER_CHROMIUM'] ?? '/usr/bin/chromium';
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const FILES = ['a2a-relay.ts', 'vite.config.ts', 'src/App.tsx'];

/** The guide's blocks whose first line is `// <file>`, by file. */
function guideFiles(): Map<string, string> {
  const markdown = readFileSync(join(repo, 'docs', 'web-apps.md'), 'utf8');
  const files = new Map<string, string>();
  for (const [, code] of markdown.matchAll(/```(?:ts|tsx)(?: fragment)?\n([\s\S]*?)```/g)) {
    const name = /^\/\/ (\S+)/.exec(code ?? '')?.[1];
    if (name !== undefined && FILES.includes(name)) files.set(name, code ?? '');
  }
  check(files.size === FILES.length, `docs/web-apps.md has ${[...files.keys()].join(', ')}; expected ${FILES.join(', ')}`);
  return files;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  execFileSync(command, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 240_000 });
}

/** A fresh app in a temporary folder, the packages installed; returns its folder. */
function freshApp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tether-fresh-vite-'));
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs);
  run('npm', ['create', '--yes', 'vite@latest', 'app', '--', '--template', 'react-ts', '--no-interactive'], dir, { ...process.env, CI: 'true' });
  for (const name of ['core', 'browser', 'react', 'ai-sdk', 'node']) run('npx', ['--yes', 'pnpm@10.34.8', 'pack', '--pack-destination', tarballs], join(repo, 'packages', name));
  const app = join(dir, 'app');
  const packed = readdirSync(tarballs).map((file) => join(tarballs, file));
  run('npm', ['install', '--no-audit', '--no-fund', ...packed, 'ai@6.0.325', '@ai-sdk/react@3.0.328'], app);
  for (const [name, code] of guideFiles()) {
    mkdirSync(dirname(join(app, name)), { recursive: true });
    writeFileSync(join(app, name), code);
  }
  check(readFileSync(join(app, 'src', 'main.tsx'), 'utf8').includes('<StrictMode>'), "the template's main.tsx has no StrictMode");
  return app;
}

/** The page's assistant messages' text. */
const lastAnswer = (page: Page): Promise<string> => page.locator('main > div.assistant').last().innerText().catch(() => '');

async function until(page: Page, what: string, accept: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await accept())) {
    check(Date.now() - started < WAIT_MS, `timed out after ${WAIT_MS} ms waiting for ${what} (the page shows ${JSON.stringify((await page.locator('#root').innerText()).slice(-300))})`);
    await page.waitForTimeout(50);
  }
}

async function say(page: Page, text: string): Promise<void> {
  await page.locator('main input').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

async function main(): Promise<void> {
  const started = Date.now();
  const app = freshApp();
  console.log(`  fresh app in ${app} (${Math.round((Date.now() - started) / 1000)} s: create, pack, install)`);
  const agent = await startOfficialV1Server();
  // The app's own Vite (the template's version), as `npm run dev` runs it.
  const vite = (await import(pathToFileURL(join(app, 'node_modules', 'vite', 'dist', 'node', 'index.js')).href)) as typeof Vite;
  process.env['AGENT_URL'] = agent.origin; // the guide's a2a-relay.ts reads it
  const server = await vite.createServer({ root: app, logLevel: 'warn', server: { host: '127.0.0.1', port: 0 } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    await server.listen();
    const url = server.resolvedUrls?.local[0] ?? '';
    const page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const cancels: string[] = [];
    page.on('request', (request) => {
      if ((request.postData() ?? '').includes('"CancelTask"')) cancels.push(request.url());
    });
    await page.goto(url);
    await page.locator('main input').waitFor();

    // 1 and 3: streams; a reload mid-answer continues the same answer.
    await say(page, 'stream updates=0 chunks=40 delayMs=100');
    await until(page, 'the answer to stream', async () => (await lastAnswer(page)).includes('chunk-5;'));
    const executions = agent.executions;
    await page.reload();
    await until(page, 'the same answer to continue to its end after the reload', async () => /chunk-39;[\s\S]*completed/.test(await lastAnswer(page)));
    const answer = await lastAnswer(page);
    check(answer.split('chunk-0;').length === 2 && answer.includes('completed'), `after the reload the answer shows chunk-0 ${answer.split('chunk-0;').length - 1} times (${JSON.stringify(answer.slice(-60))})`);
    check(agent.executions === executions, `the reload sent the agent ${agent.executions - executions} more message(s)`);
    const cancelsSent = (): number => cancels.length;
    check(cancelsSent() === 0, `the reload sent ${cancelsSent()} CancelTask`);
    const users = await page.locator('main > div.user').allInnerTexts();
    check(users.length === 1 && users[0]?.includes('stream updates=0') === true, `after the reload the user's messages are ${JSON.stringify(users)}`);
    console.log(`  ✔ streamed; reloaded mid-answer, the same answer went on to its 40th chunk (the agent got ${agent.executions} message, no CancelTask); the user's message is there`);

    // 2: a pause's question, answered by the next message.
    await say(page, 'input');
    await until(page, "the agent's question", async () => (await lastAnswer(page)).includes('need input'));
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await until(page, 'the chat to be ready at the pause', async () => (await page.getByRole('button', { name: 'Stop' }).count()) === 0);
    await say(page, 'violet');
    await until(page, 'the answered task to complete', async () => (await lastAnswer(page)).includes('got: violet'));
    console.log("  ✔ the pause's question showed; the next message answered it and the task completed");

    // 4: Stop — one CancelTask, the task canceled.
    await say(page, 'slow steps=300 delayMs=100');
    await until(page, 'the slow answer to stream', async () => (await lastAnswer(page)).includes('chunk-3;'));
    await page.getByRole('button', { name: 'Stop' }).click();
    const client = await nodeConnect(agent.origin);
    let state = '';
    for (let i = 0; i < 100 && state !== 'canceled'; i++) {
      const tasks = (await client.listTasks({})).tasks;
      state = tasks.find((t) => t.history.some((m) => m.parts.some((p) => p.kind === 'text' && p.text.startsWith('slow '))))?.status.state ?? '';
      if (state !== 'canceled') await page.waitForTimeout(50);
    }
    check(state === 'canceled', `after Stop the agent holds the task as ${state}`);
    check(cancelsSent() === 1, `Stop sent ${cancelsSent()} CancelTask`);
    console.log('  ✔ Stop sent one CancelTask; the agent holds the task as canceled');
  } finally {
    await browser.close();
    await server.close();
    await agent.close();
    rmSync(dirname(app), { recursive: true, force: true });
  }
}

const watchdog = setTimeout(() => {
  console.error('fresh Vite app: FAILED — still running after 300 s');
  process.exit(1);
}, 300_000);
watchdog.unref();
/** Whether the npm registry answers (the fresh app needs it); without it the check is skipped, except in CI. */
function registryReachable(): boolean {
  try {
    execFileSync('npm', ['view', 'create-vite', 'version'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

try {
  if (!registryReachable()) {
    if (process.env['CI'] === 'true') throw new CheckFailed('CI=true and the npm registry does not answer: the fresh-app check cannot be skipped in CI');
    console.warn('\n⚠⚠ fresh Vite app: the npm registry does not answer — SKIPPED ⚠⚠\n');
    process.exit(0);
  }
  await main();
  console.log('fresh Vite app: ok (docs/web-apps.md as written, in a new Vite React app outside the workspace, dev server with StrictMode, the relay in front of the official v1.0 server, in real Chromium)');
} catch (error) {
  console.error(`fresh Vite app: FAILED — ${error instanceof CheckFailed ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
}
