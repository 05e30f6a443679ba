// Fire-and-follow with push, across two processes that share a file task store:
//
//   1. `submit` connects with a push receiver, starts N tasks (delivery 'auto' → push: the webhook goes
//      with each send), waits until their records are stored, and exits without waiting for results.
//   2. `finish` — a new process, as after a restart or on another worker — opens the same store, listens
//      for pushes on the same URL, `resumeAll()`s (each task gets a fresh webhook: tokens are never
//      stored), and follows every task to its end by push alone.
//
// The parent (this file without arguments) starts an embedded agent, runs both, and checks every
// result against the agent itself; it exits non-zero on any mismatch. `--quiet` prints one line.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, createFileTaskStore, createPushReceiver, textOf, type A2AClient } from '@a2a-tether/node';
import { startTestAgent } from '@a2a-tether/testkit';

const TASKS = 8;
const PRINCIPAL = 'worker-example';
const quiet = process.argv.includes('--quiet');
const log = (line: string): void => {
  if (!quiet) console.log(line);
};

/** The push receiver on `port` (0: any), and the client that follows tasks through it. */
async function worker(agentUrl: string, dir: string, port: number): Promise<{ client: A2AClient; port: number; close: () => Promise<void> }> {
  const receiver = createPushReceiver({ token: 'receiver-wide-secret' });
  const server = createServer(receiver.nodeHandler);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  const client = await connect(agentUrl, {
    store: createFileTaskStore(dir),
    principal: PRINCIPAL,
    push: { receiver, url: `http://127.0.0.1:${bound}/a2a/push`, safetyPollMs: 5_000 },
  });
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      receiver.close();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { client, port: bound, close };
}

async function submit(agentUrl: string, dir: string, port: number): Promise<void> {
  const { client, close } = await worker(agentUrl, dir, port);
  for (let i = 0; i < TASKS; i++) {
    const task = await client.start(`slow steps=16 delayMs=500 label=t${i}`); // resolves once stored
    await task.flush();
    task.detach(); // stop watching: the task runs on at the agent
  }
  await close();
}

async function finish(agentUrl: string, dir: string, port: number): Promise<void> {
  const { client, close } = await worker(agentUrl, dir, port);
  const handles = await client.resumeAll();
  const results = await Promise.all(
    handles.map(async (handle) => {
      const connections = new Set<string>();
      for await (const event of handle.events()) if (event.type === 'connection') connections.add(event.state);
      const task = await handle.done();
      return { id: task.id, state: task.status.state, text: textOf(task), byPush: connections.has('waiting-push') };
    }),
  );
  await close();
  console.log(JSON.stringify(results));
}

function run(mode: string, agentUrl: string, dir: string, port: number): Promise<string> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, self, mode, agentUrl, dir, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${mode} exited with ${code}`));
    });
  });
}

async function main(): Promise<void> {
  const agent = await startTestAgent({ versions: ['1.0'] });
  const dir = await mkdtemp(join(tmpdir(), 'tether-worker-'));
  try {
    // A free port for both workers' receiver (the webhook URL stays the same across the restart).
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    log(`agent ${agent.origin}; store ${dir}; webhook http://127.0.0.1:${port}/a2a/push`);
    await run('submit', agent.origin, dir, port);
    const direct = await connect(agent.origin, { cardCache: false });
    // What the second process will find: the records, of tasks still running at the agent.
    const stored = await createFileTaskStore(dir).list({ active: true });
    const running = (await Promise.all(stored.map((r) => direct.getTask(r.taskId)))).filter((t) => t.status.state === 'working').length;
    log(`submit: ${TASKS} tasks started and stored; the process exited (${stored.length} records, ${running} tasks still working at the agent)`);
    const out = await run('finish', agent.origin, dir, port);
    const results = JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as { id: string; state: string; text: string; byPush: boolean }[];

    const problems: string[] = [];
    if (running === 0) problems.push('every task had ended before the second process started: nothing was followed by push');
    if (results.length !== TASKS) problems.push(`finish resumed ${results.length} tasks, not ${TASKS}`);
    for (const result of results) {
      const truth = await direct.getTask(result.id);
      if (result.state !== 'completed' || truth.status.state !== 'completed') problems.push(`${result.id}: ${result.state} (agent: ${truth.status.state})`);
      if (result.text !== textOf(truth) || result.text === '') problems.push(`${result.id}: artifacts differ from the agent's`);
      if (!result.byPush) problems.push(`${result.id}: not followed by push`);
      log(`finish: ${result.id} ${result.state} "${result.text}"${result.byPush ? ' (by push)' : ''}`);
    }
    if (problems.length > 0) {
      console.error(`node-worker: FAILED\n${problems.join('\n')}`);
      process.exitCode = 1;
      return;
    }
    console.log(`node-worker: ok (${TASKS} tasks submitted by one process, finished by push in another; results match the agent)`);
  } finally {
    await agent.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const [mode, agentUrl = '', dir = '', port = '0'] = process.argv.slice(2).filter((a) => a !== '--quiet');
if (mode === 'submit') await submit(agentUrl, dir, Number(port));
else if (mode === 'finish') await finish(agentUrl, dir, Number(port));
else await main();
