import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ScenarioError, startTestAgent, type ScenarioContext, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbiddenIn, forgedLines, LINE, PART } from './hostile.js';
import { startIdRewriter, type IdRewriter } from './id-rewriter.js';
import { sandbox, type Sandbox, type TetherRun } from './run-tether.js';

// Issue 33, point 9 (G12): an agent that puts ESC, OSC 52, C1, bidi controls and line-forging newlines in
// every field it controls — task and context ids (through a proxy that rewrites them), the card, status
// and error messages, artifact ids, names, descriptions, parts, media types, file names and URIs —
// leaves every byte of stdout and stderr free of them, in every output format and command.

let agent: TestAgent;
let proxy: IdRewriter;
let box: Sandbox;

const remember = (ctx: ScenarioContext): void => {
  proxy.ids.add(ctx.task.id);
  proxy.ids.add(ctx.task.contextId);
};

beforeAll(async () => {
  agent = await startTestAgent({
    cardOverride: (card) => ({ ...card, name: LINE, description: LINE, skills: [{ id: LINE, name: LINE, description: LINE, tags: [LINE] }] }),
    scenarios: {
      hostile: (ctx) => {
        remember(ctx);
        ctx.status('working', LINE);
        ctx.artifact({
          artifactId: `a1${LINE}`,
          name: LINE,
          description: LINE,
          parts: [
            { kind: 'text', text: PART },
            { kind: 'data', data: { [LINE]: PART } },
            { kind: 'file', bytes: Buffer.from('bytes').toString('base64'), filename: `../${LINE}/..`, mediaType: LINE },
            { kind: 'file', url: `http://127.0.0.1:9/${LINE}`, mediaType: LINE },
          ],
          lastChunk: true,
        });
        ctx.artifact({ artifactId: `a2${LINE}`, parts: [{ kind: 'text', text: PART }], lastChunk: true });
        ctx.status('completed', LINE);
      },
      hostilefail: (ctx) => {
        remember(ctx);
        ctx.status('working', LINE);
        throw new ScenarioError(-32603, LINE);
      },
      hostilepause: (ctx) => {
        remember(ctx);
        ctx.status('input-required', LINE);
      },
    },
  });
  proxy = await startIdRewriter(agent.origin, LINE);
  box = sandbox();
});
afterAll(async () => {
  await proxy?.close();
  await agent?.close();
  box?.remove();
});

/** Runs `tether … -a <proxy> --transport JSONRPC`. */
const tether = (args: string[]): Promise<TetherRun> => box.run([...args, '-a', proxy.url, '--transport', 'JSONRPC']);

/** Every byte of both streams: no forbidden code point, no forged line. */
function expectClean(run: TetherRun, what: string): void {
  expect(forbiddenIn(run.stdout), `${what}: stdout`).toEqual([]);
  expect(forbiddenIn(run.stderr), `${what}: stderr`).toEqual([]);
  expect(forgedLines(run.stdout), `${what}: stdout`).toEqual([]);
  expect(forgedLines(run.stderr), `${what}: stderr`).toEqual([]);
}

/** The hostile task id of a JSON answer (`{ task }` or a bare Task). */
function idOf(run: TetherRun): string {
  const body = JSON.parse(run.stdout) as { task?: { id: string }; id?: string };
  return body.task?.id ?? body.id ?? '';
}

describe('an agent that puts terminal controls in every field', () => {
  it('send: text, --stream, --verbose, --async, --debug — nothing reaches stdout or stderr', async () => {
    for (const extra of [[], ['--stream'], ['--verbose'], ['--stream', '--verbose'], ['--async'], ['--debug'], ['--debug', '--stream']]) {
      const run = await tether(['send', '--text', 'hostile', ...extra]);
      expect(run.code, `send ${extra.join(' ')}: ${run.stderr}`).toBe(0);
      expectClean(run, `send ${extra.join(' ')}`);
      expect(run.stdout + run.stderr).toContain('\\u202e');
    }
  });

  it('send -o json (one document, JSON Lines, --debug): escaped as \\u00XX, the agent\'s strings intact', async () => {
    const run = await tether(['send', '--text', 'hostile', '-o', 'json']);
    expect(run.code).toBe(0);
    expectClean(run, 'send -o json');
    const body = JSON.parse(run.stdout) as { task: { id: string; contextId: string; status: { message: { parts: { text: string }[] } }; artifacts: { name: string; parts: { text?: string }[] }[] } };
    expect(body.task.id).toBe(proxy.hostile(body.task.id.slice(0, 36)));
    expect(body.task.status.message.parts[0]?.text).toBe(LINE);
    expect(body.task.artifacts[0]?.name).toBe(LINE);
    expect(body.task.artifacts[0]?.parts[0]?.text).toBe(PART);
    for (const extra of [['--stream'], ['--debug'], ['--async']]) {
      const other = await tether(['send', '--text', 'hostile', '-o', 'json', ...extra]);
      expect(other.code).toBe(0);
      expectClean(other, `send -o json ${extra.join(' ')}`);
      const documents = extra.includes('--stream') ? other.stdout.trim().split('\n') : [other.stdout];
      for (const document of documents) expect(() => JSON.parse(document)).not.toThrow();
    }
  });

  it('the agent\'s error message, a paused task\'s question and resume command', async () => {
    for (const extra of [[], ['-o', 'json'], ['--stream'], ['--debug']]) {
      const failed = await tether(['send', '--text', 'hostilefail', ...extra]);
      expect(failed.code, failed.stderr).not.toBe(0);
      expectClean(failed, `send hostilefail ${extra.join(' ')}`);
      const paused = await tether(['send', '--text', 'hostilepause', ...extra]);
      expect(paused.code, paused.stderr).toBe(0);
      expectClean(paused, `send hostilepause ${extra.join(' ')}`);
    }
  });

  it('card get, task get, task list, task list --local, task resume', async () => {
    const sent = await tether(['send', '--text', 'hostile', '-o', 'json']);
    const id = idOf(sent);
    expect(id).toContain('\u001b');
    const runs: [string, string[]][] = [
      ['card get', ['card', 'get']],
      ['card get --verbose', ['card', 'get', '--verbose']],
      ['task get', ['task', 'get', id]],
      ['task get --verbose', ['task', 'get', id, '--verbose']],
      ['task get -o json', ['task', 'get', id, '-o', 'json']],
      ['task get --debug', ['task', 'get', id, '--debug']],
      ['task list', ['task', 'list']],
      ['task list -o json', ['task', 'list', '-o', 'json']],
      ['task list --local', ['task', 'list', '--local']],
      ['task list --local -o json', ['task', 'list', '--local', '-o', 'json']],
      ['task resume', ['task', 'resume', id]],
      ['task subscribe', ['task', 'subscribe', id]],
      ['task cancel', ['task', 'cancel', id]],
    ];
    for (const [what, args] of runs) {
      const run = await tether(args);
      expectClean(run, what);
      // The agent's values were shown (escaped), not dropped: the cancel's error is the agent's own text.
      if (what !== 'task cancel') expect(run.stdout + run.stderr, what).toContain('\\u202e');
    }
  });

  it('task download: file names are safe names, the lines about them clean', async () => {
    const id = idOf(await tether(['send', '--text', 'hostile', '-o', 'json']));
    for (const extra of [[], ['-o', 'json']]) {
      const dir = join(box.cwd, `out${extra.length}`);
      mkdirSync(dir, { recursive: true });
      const run = await tether(['task', 'download', id, '--dir', dir, ...extra]);
      expect(run.code, run.stderr).toBe(0);
      expectClean(run, `task download ${extra.join(' ')}`);
      expect(run.stderr).toContain('Skipped: ');
      const names = readdirSync(dir);
      expect(names.length).toBeGreaterThanOrEqual(4);
      for (const name of names) {
        expect(forbiddenIn(name), name).toEqual([]);
        expect(name).not.toMatch(/[/\\]|^\.|\n/);
      }
    }
  });
});
