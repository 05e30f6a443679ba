import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type A2AClient, type Binding, type Part, type ProtocolVersion, type TaskEvent } from '@a2a-tether/node';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

// A pause answered from anywhere (issue 34, point 3), on the official @a2a-js/sdk servers: 1.3.0 (A2A v1.0),
// whose answer's stream opens with the task still at the pause it answers, every time, and 0.3.14 (v0.3).
// A fresh client answers with `start({ text, taskId, contextId })` (a stateless server's request), and the
// `tether` CLI runs the resume line it printed at the pause, as printed.

const require = createRequire(import.meta.url);
const cliPackage = require.resolve('@a2a-tether/cli/package.json');
const CLI = join(dirname(cliPackage), (JSON.parse(readFileSync(cliPackage, 'utf8')) as { bin: { tether: string } }).bin.tether);
/** Runs of the CLI's own resume line per server; each must end completed. */
const CLI_RUNS = 10;

let v1: OfficialServer;
let v03: OfficialServer;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tether-answer-pause-'));
  [v1, v03] = await Promise.all([startOfficialV1Server(), startOfficialV03Server()]);
});
afterAll(async () => {
  await Promise.all([v1?.close(), v03?.close()]);
  rmSync(root, { recursive: true, force: true });
});

const text = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
const states = (events: readonly TaskEvent[]): string[] => events.flatMap((e) => (e.type === 'status' ? [e.state] : []));

async function clientOf(server: OfficialServer, version: ProtocolVersion, binding: Binding): Promise<A2AClient> {
  return connect(server.cardUrl, { protocolVersions: [version], preferredBindings: [binding], cardCache: false });
}

async function readAll(events: AsyncIterable<TaskEvent>): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const COMBOS = [
  ['1.0', 'JSONRPC'],
  ['1.0', 'HTTP+JSON'],
  ['0.3', 'JSONRPC'],
  ['0.3', 'HTTP+JSON'],
] as const satisfies ReadonlyArray<readonly [ProtocolVersion, Binding]>;

describe.each(COMBOS)('start({ taskId }) answering a pause on the official v%s server, %s', (version, binding) => {
  it.each(['stream', 'poll'] as const)('delivery %s: no input-required after the answer; completed with its artifact', async (delivery) => {
    const server = version === '1.0' ? v1 : v03;
    const asker = await clientOf(server, version, binding);
    const first = await asker.sendMessage('input');
    if (first.kind !== 'task') throw new Error('the agent must open a task');
    expect(first.status.state).toBe('input-required');
    // Another request of a stateless server: a client of its own, no store shared with the asker.
    const answerer = await clientOf(server, version, binding);
    const handle = await answerer.start({ text: 'blue', taskId: first.id, contextId: first.contextId }, { delivery });
    const events = await readAll(handle.events());
    expect(states(events)).not.toContain('input-required');
    expect(states(events).at(-1)).toBe('completed');
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    expect(text(final.artifacts.at(-1)?.parts ?? [])).toBe('got: blue');
  });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function tether(args: readonly string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', HOME: join(root, 'home'), XDG_STATE_HOME: join(root, 'state'), ...env },
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

/** Splits a printed command line into its words (plain, '…' and "…" words, as the CLI quotes them). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const [, single, double, plain] of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(single ?? double ?? plain ?? '');
  return words;
}

describe.each([
  ['1.0', {}],
  ['0.3', { A2ACLI_A2A_VERSION: '0.3' }],
] as const)("the CLI's printed resume line, official v%s server", (version, env) => {
  it(`ends completed, ${CLI_RUNS} of ${CLI_RUNS} runs`, async () => {
    const server = version === '1.0' ? v1 : v03;
    const ends: string[] = [];
    for (let run = 0; run < CLI_RUNS; run++) {
      const paused = await tether(['send', '-a', server.origin, '--text', 'input'], env);
      expect(paused.code, paused.stderr).toBe(0);
      const printed = /answer it with: (tether send .*)$/m.exec(paused.stderr)?.[1];
      expect(printed, paused.stderr).toBeDefined();
      const [command, ...args] = shellWords((printed as string).replace('<reply>', 'blue'));
      expect(command).toBe('tether');
      const answered = await tether(args, env);
      expect(answered.code, answered.stderr).toBe(0);
      const state = /^State: (\S+)$/m.exec(answered.stdout)?.[1] ?? `no state: ${answered.stdout} ${answered.stderr}`;
      // A follow that stopped at a pause says so (a Resume line, and "waiting at <the state the view had by then>").
      const stopped = /^Resume: /m.test(answered.stdout) || answered.stderr.includes('is waiting at');
      ends.push(stopped ? `${state}, stopped at a pause` : state);
    }
    expect(ends).toEqual(Array.from({ length: CLI_RUNS }, () => 'completed'));
  }, 120_000);
});
