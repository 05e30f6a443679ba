import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startFaultProxy, type FaultProxy } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';
import { startVoltagentServer, type VoltagentServer } from '../src/voltagent-server.js';

// The `tether` binary (packages/cli, built) against independent A2A servers: the official
// @a2a-js/sdk servers for v1.0 and v0.3, and VoltAgent's v0.3 JSON-RPC server. JSON output must be
// the protocol's own objects in the version the agent speaks.

const require = createRequire(import.meta.url);
const cliPackage = require.resolve('@a2a-tether/cli/package.json');
const CLI = join(dirname(cliPackage), (JSON.parse(readFileSync(cliPackage, 'utf8')) as { bin: { tether: string } }).bin.tether);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let root: string;

function tether(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', HOME: join(root, 'home'), XDG_STATE_HOME: join(root, 'state') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

type Json = Record<string, unknown>;
const jsonLines = (stdout: string): Json[] => stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Json);
const textOf = (parts: unknown): string => (Array.isArray(parts) ? parts.map((p: { text?: string }) => p.text ?? '').join('') : '');

let v1: OfficialServer;
let v03: OfficialServer;
let volt: VoltagentServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tether-cli-interop-'));
  [v1, v03, volt] = await Promise.all([startOfficialV1Server(), startOfficialV03Server(), startVoltagentServer({ deltaDelayMs: 5, slowDelayMs: 20 })]);
});
afterAll(async () => {
  await Promise.all([v1?.close(), v03?.close(), volt?.close()]);
  rmSync(root, { recursive: true, force: true });
});

describe('official v1.0 server', () => {
  it('card get -o json: the card as served', async () => {
    const run = await tether(['card', 'get', '-a', v1.origin, '-o', 'json', '--validate']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(await (await fetch(v1.cardUrl)).json());
  });

  it('send --stream -o json: StreamResponse lines, the task first, the terminal status last; the artifact is the server\'s', async () => {
    const run = await tether(['send', '-a', v1.origin, '--text', 'stream updates=3 chunks=5 delayMs=5', '--stream', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    for (const line of lines) expect(['task', 'message', 'statusUpdate', 'artifactUpdate']).toContain(Object.keys(line)[0]);
    for (const line of lines) expect(Object.keys(line)).toHaveLength(1);
    const task = lines[0]?.['task'] as { id: string };
    expect(task.id).toBeTruthy();
    const last = lines.at(-1)?.['statusUpdate'] as { taskId: string; status: { state: string } };
    expect(last).toMatchObject({ taskId: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    const streamed = lines.map((l) => textOf((l['artifactUpdate'] as { artifact?: { parts?: unknown } } | undefined)?.artifact?.parts)).join('');
    const got = await tether(['task', 'get', task.id, '-a', v1.origin, '-o', 'json']);
    const final = JSON.parse(got.stdout) as { artifacts: { parts: unknown }[] };
    expect(streamed).toMatch(/^(chunk-\d+;){5}$/);
    expect(textOf(final.artifacts[0]?.parts)).toBe(streamed);
  });

  it('send --async, then task get --wait polls to the end', async () => {
    const sent = await tether(['send', '-a', v1.origin, '--text', 'slow steps=10 delayMs=30', '--async', '-o', 'json']);
    expect(sent.code, sent.stderr).toBe(0);
    const { task } = JSON.parse(sent.stdout) as { task: { id: string; contextId: string } };
    expect(task.contextId).toBeTruthy();
    const got = await tether(['task', 'get', task.id, '-a', v1.origin, '--wait', '--poll-interval', '200ms', '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('task cancel: the canceled task', async () => {
    const sent = await tether(['send', '-a', v1.origin, '--text', 'slow steps=400 delayMs=50', '--async', '-o', 'json']);
    const { task } = JSON.parse(sent.stdout) as { task: { id: string } };
    const run = await tether(['task', 'cancel', task.id, '-a', v1.origin]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Task ID: ${task.id}\n`);
    expect(run.stdout).toContain('State: canceled\n');
  });

  describe('through a cutting proxy', () => {
    let proxy: FaultProxy;
    beforeAll(async () => {
      proxy = await startFaultProxy({ target: v1.origin, seed: 5 });
    });
    afterAll(async () => {
      await proxy?.close();
    });

    it('task resume follows a task sent with --async through cuts, to exactly the server\'s artifact; task list --local shows it finished', async () => {
      // A task of ~6 s: the resume (a new process) starts well before it ends, and its streams are cut twice.
      const sent = await tether(['send', '-a', proxy.url, '--text', 'slow steps=120 delayMs=50', '--async', '-o', 'json']);
      expect(sent.code, sent.stderr).toBe(0);
      const { task } = JSON.parse(sent.stdout) as { task: { id: string } };
      proxy.addFault({ kind: 'cut', afterEvents: 4, mode: 'reset', match: { sse: true }, times: 2 });
      const resumed = await tether(['task', 'resume', task.id, '-o', 'json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(proxy.stats.cuts.reset).toBe(2);
      const body = JSON.parse(resumed.stdout) as { task: { status: { state: string }; artifacts: { parts: unknown }[] } };
      expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
      const direct = JSON.parse((await tether(['task', 'get', task.id, '-a', v1.origin, '-o', 'json'])).stdout) as { artifacts: { parts: unknown }[] };
      expect(textOf(body.task.artifacts[0]?.parts)).toBe(textOf(direct.artifacts[0]?.parts));
      expect(textOf(direct.artifacts[0]?.parts)).toMatch(/^(chunk-\d+;){120}$/);
      const local = await tether(['task', 'list', '--local']);
      expect(local.stdout).toMatch(new RegExp(`Task ID: ${task.id}\\nContext ID: \\S+\\nState: completed\\nAgent: \\S+\\nOutcome: finished completed\\n`));
    }, 60_000);
  });

  it('conformance passes', async () => {
    const run = await tether(['conformance', '-a', v1.origin, '-o', 'json', '--slow-text', 'slow steps=200 delayMs=50']);
    const report = JSON.parse(run.stdout) as { passed: boolean; checks: { name: string; status: string; reason: string }[] };
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(run.code).toBe(0);
    expect(report.passed).toBe(true);
  }, 60_000);
});

describe('official v0.3 server (explicit --a2a-version 0.3)', () => {
  it('without --a2a-version 0.3 the legacy agent is refused, with the flag named in the hint', async () => {
    const run = await tether(['card', 'get', '-a', v03.origin, '-o', 'json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.hint).toContain('--a2a-version 0.3');
  });

  it('card get and send --stream -o json: v0.3 shapes, as the agent sent them', async () => {
    const card = await tether(['card', 'get', '-a', v03.origin, '--a2a-version', '0.3', '-o', 'json']);
    expect(card.code, card.stderr).toBe(0);
    expect(JSON.parse(card.stdout)).toEqual(await (await fetch(v03.cardUrl)).json());
    const run = await tether(['send', '-a', v03.origin, '--a2a-version', '0.3', '--text', 'stream updates=2 chunks=4 delayMs=5', '--stream', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines[0]?.['kind']).toBe('task');
    for (const line of lines) expect(['task', 'message', 'status-update', 'artifact-update']).toContain(line['kind']);
    expect(lines.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' }, final: true });
    expect(lines.map((l) => textOf((l['artifact'] as { parts?: unknown } | undefined)?.parts)).join('')).toMatch(/^(chunk-\d+;){4}$/);
  });

  it('send --async, task get --wait, task cancel', async () => {
    const sent = await tether(['send', '-a', v03.origin, '--a2a-version', '0.3', '--text', 'slow steps=6 delayMs=30', '--async', '-o', 'json']);
    expect(sent.code, sent.stderr).toBe(0);
    const task = JSON.parse(sent.stdout) as { kind: string; id: string };
    expect(task.kind).toBe('task');
    const got = await tether(['task', 'get', task.id, '-a', v03.origin, '--a2a-version', '0.3', '--wait', '--poll-interval', '200ms', '-o', 'json']);
    expect(JSON.parse(got.stdout)).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    const long = JSON.parse((await tether(['send', '-a', v03.origin, '--a2a-version', '0.3', '--text', 'slow steps=400 delayMs=50', '--async', '-o', 'json'])).stdout) as { id: string };
    const cancel = await tether(['task', 'cancel', long.id, '-a', v03.origin, '--a2a-version', '0.3', '-o', 'json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(JSON.parse(cancel.stdout)).toMatchObject({ kind: 'task', id: long.id, status: { state: 'canceled' } });
  });
});

/** `task resume` of a task sent with `--async`, its streams cut twice on the way: exactly the agent's artifact. */
async function resumeThroughCuts(target: string, cardPath: string, version: string[], text: string): Promise<void> {
  const proxy = await startFaultProxy({ target, seed: 7 });
  try {
    const card = `${proxy.url}${cardPath}`;
    const sent = await tether(['send', '-a', card, ...version, '--text', text, '--async', '-o', 'json']);
    expect(sent.code, sent.stderr).toBe(0);
    const sentBody = JSON.parse(sent.stdout) as { task?: { id: string }; id?: string };
    const taskId = (sentBody.task?.id ?? sentBody.id) as string;
    proxy.addFault({ kind: 'cut', afterEvents: 4, mode: 'reset', match: { sse: true }, times: 2 });
    const resumed = await tether(['task', 'resume', taskId, ...version, '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(proxy.stats.cuts.reset).toBe(2);
    const body = JSON.parse(resumed.stdout) as { task?: Json } & Json;
    const task = (body.task ?? body) as { status: { state: string }; artifacts: { parts: unknown }[] };
    expect(['completed', 'TASK_STATE_COMPLETED']).toContain(task.status.state);
    const direct = JSON.parse((await tether(['task', 'get', taskId, '-a', card, ...version, '-o', 'json'])).stdout) as { artifacts: { parts: unknown }[] };
    const shown = task.artifacts.map((a) => textOf(a.parts)).join('');
    expect(shown).toBe(direct.artifacts.map((a) => textOf(a.parts)).join(''));
    expect(shown.length).toBeGreaterThan(0);
    const local = await tether(['task', 'list', '--local']);
    expect(local.stdout).toMatch(new RegExp(`Task ID: ${taskId}\\nContext ID: \\S+\\nState: completed\\n`));
  } finally {
    await proxy.close();
  }
}

describe('official v0.3 server: task resume through a cutting proxy', () => {
  it('follows a task sent with --async through two cuts, to exactly the server\'s artifact; task list --local shows it', async () => {
    await resumeThroughCuts(v03.origin, new URL(v03.cardUrl).pathname, ['--a2a-version', '0.3'], 'slow steps=120 delayMs=50');
  }, 60_000);
});

describe('exit codes against the official v1.0 server: 0, 2, 3, 4 and 5, each produced', () => {
  it('0 done, 2 usage, 3 unreachable, 4 rejected credentials, 5 timeout — each with its error code in the envelope', async () => {
    const ok = await tether(['send', '-a', v1.origin, '--text', 'echo hi', '-o', 'json']);
    expect(ok.code, ok.stderr).toBe(0);
    const usage = await tether(['send', '-a', v1.origin, '--media-type', 'text/plain', '--text', 'x', '-o', 'json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout).error.code).toBe('A2ACLI_ERR_USAGE');
    const closed = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const unreachable = await tether(['card', 'get', '-a', `http://127.0.0.1:${closed}`, '-o', 'json']);
    expect(unreachable.code).toBe(3);
    expect(JSON.parse(unreachable.stdout).error.code).toBe('A2ACLI_ERR_UNREACHABLE');
    // The same official server behind a gate that wants a bearer token.
    const guarded = await startOfficialV1Server({
      watch: (req, res, next) => (req.headers.authorization === 'Bearer right-token' ? next() : void res.status(401).json({ error: 'unauthorized' })),
    });
    try {
      const rejected = await tether(['send', '-a', guarded.origin, '--bearer', 'wrong-token', '--text', 'echo hi', '-o', 'json']);
      expect(rejected.code, rejected.stdout).toBe(4);
      expect(JSON.parse(rejected.stdout).error.code).toBe('A2ACLI_ERR_AUTH_FAILED');
      const accepted = await tether(['send', '-a', guarded.origin, '--bearer', 'right-token', '--text', 'echo hi', '-o', 'json']);
      expect(accepted.code, accepted.stderr).toBe(0);
    } finally {
      await guarded.close();
    }
    const timeout = await tether(['send', '-a', v1.origin, '--text', 'slow steps=200 delayMs=50', '--timeout', '800ms', '-o', 'json']);
    expect(timeout.code).toBe(5);
    expect(JSON.parse(timeout.stdout).error.code).toBe('A2ACLI_ERR_TIMEOUT');
  }, 60_000);
});

describe('VoltAgent (v0.3 JSON-RPC, card at its own path)', () => {
  // VoltAgent answers tasks/resubscribe with -32601, stops a task's work when its stream's client goes
  // away, and runs a blocking send to the end whatever --async says: a task cut mid-work cannot finish
  // there (the engine ends it with a typed error, packages/interop/test/voltagent.test.ts). A cut inside
  // the final event, after the server stored the result, is what a client can get through.
  it('send through a cut inside the final event ends completed (GetTask, no second message); task resume and task list --local then show it', async () => {
    const proxy = await startFaultProxy({ target: volt.baseUrl, seed: 1 });
    try {
      const card = `${proxy.url}${new URL(volt.cardUrl).pathname}`;
      const text = 'cut me at the very end';
      proxy.addFault({ kind: 'cut', afterEvents: 8, within: 'event', mode: 'reset', match: { rpcMethod: 'message/stream', sse: true } });
      const run = await tether(['send', '-a', card, '--a2a-version', '0.3', '--text', text, '-o', 'json']);
      expect(run.code, run.stderr).toBe(0);
      expect(proxy.log.some((entry) => entry.fault?.startsWith('cut') === true)).toBe(true);
      const task = JSON.parse(run.stdout) as { id: string; kind: string; status: { state: string; message?: { parts: unknown } } };
      expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      expect(textOf(task.status.message?.parts)).toBe(`echo: ${text}`);
      expect(volt.rpcCalls.filter((call) => call.method === 'message/stream' && call.text === text)).toHaveLength(1);
      const resumed = await tether(['task', 'resume', task.id, '--a2a-version', '0.3', '-o', 'json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
      const local = await tether(['task', 'list', '--local']);
      expect(local.stdout).toMatch(new RegExp(`Task ID: ${task.id}\\nContext ID: \\S+\\nState: completed\\n`));
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('send --async (VoltAgent answers once the task is done, whatever blocking says), task get --wait, task cancel of that finished task: the server\'s error by its A2A name', async () => {
    const sent = await tether(['send', '-a', volt.cardUrl, '--a2a-version', '0.3', '--text', 'slow steps=4 delayMs=10', '--async', '-o', 'json']);
    expect(sent.code, sent.stderr).toBe(0);
    const task = JSON.parse(sent.stdout) as { kind: string; id: string; status: { state: string } };
    expect(task.kind).toBe('task');
    const got = await tether(['task', 'get', task.id, '-a', volt.cardUrl, '--a2a-version', '0.3', '--wait', '--poll-interval', '200ms', '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    const cancel = await tether(['task', 'cancel', task.id, '-a', volt.cardUrl, '--a2a-version', '0.3', '-o', 'json']);
    // A finished task cannot be canceled: the agent's error by its A2A name, its code, a hint; exit 1.
    expect(cancel.code).toBe(1);
    expect(JSON.parse(cancel.stdout)).toMatchObject({ error: { code: 'TaskNotCancelableError', a2aCode: -32002 } });
  });

  it('card get, and send -o json: the completed task in v0.3 shape', async () => {
    const card = await tether(['card', 'get', '-a', volt.cardUrl, '--a2a-version', '0.3']);
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^Interface: JSONRPC 0\.3 /m);
    const run = await tether(['send', '-a', volt.cardUrl, '--a2a-version', '0.3', '--text', 'hello volt', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  });

  it('send --stream -o json: every line a v0.3 object, the last one terminal', async () => {
    const run = await tether(['send', '-a', volt.cardUrl, '--a2a-version', '0.3', '--text', 'hello stream', '--stream', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines[0]?.['kind']).toBe('task');
    expect(lines.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
  });
});
