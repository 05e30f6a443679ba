import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';

// Issue 20, point 2: on a terminal, `tether send` shows a live view — the agent's text as it streams, a
// status block redrawn in place (state, connection, each artifact's chunks and bytes) — and asks a pause's
// question inline. Driven here in a real pseudo-terminal: a private tmux server runs the built CLI, the
// test reads the screen (`capture-pane`) and types the answer (`send-keys`).

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const tmuxFound = spawnSync('tmux', ['-V']).status === 0;
if (!tmuxFound && process.env['CI'] === 'true') throw new Error('CI=true and no tmux: the live view tests must run in CI (.ci/run installs it)');
if (!tmuxFound) console.warn('⚠ skipping the live view tests: no tmux');

const SOCKET = `tether-live-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });

const agents: TestAgent[] = [];
const proxies: FaultProxy[] = [];
afterEach(async () => {
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

/** Runs the CLI in a new 100×40 terminal; the shell prints its exit code after it. */
function runInTerminal(args: string[]): void {
  const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  tmux('new-session', '-d', '-s', 'cli', '-x', '100', '-y', '40', `node '${CLI}' ${quoted}; echo "EXIT=$?"; sleep 60`);
}

/** The terminal's screen (and what scrolled off it), as plain text. */
const screen = (): string => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', 'cli');

/** Reads the screen until `check` holds (every 50 ms, at most `ms`); every screen seen, in order. */
async function until(check: (text: string) => boolean, ms = 20_000): Promise<string[]> {
  const seen: string[] = [];
  const end = Date.now() + ms;
  for (;;) {
    const text = screen();
    seen.push(text);
    if (check(text)) return seen;
    if (Date.now() > end) throw new Error(`not on screen within ${ms} ms; the screen:\n${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!tmuxFound || !existsSync(CLI))('tether send on a terminal: the live view', () => {
  it('asks the pause\'s question inline; the typed answer goes to the same task, which completes', async () => {
    const agent = await startTestAgent();
    agents.push(agent);
    runInTerminal(['send', '--live', '-a', agent.url, '--text', 'input']);
    await until((s) => s.includes('need input') && s.includes('> '));
    tmux('send-keys', '-t', 'cli', 'blue', 'Enter');
    const seen = await until((s) => s.includes('EXIT='));
    const last = seen.at(-1) as string;
    expect(last).toContain('EXIT=0');
    expect(last).toMatch(/Task [0-9a-f-]+ · completed/);
    expect(last).toContain('got: blue');
    expect(last).toMatch(/answer: 1 chunk, 9 bytes \(complete\)/);
    // The answer reached the agent once, as the reply to the task that asked.
    const replies = agent.requests.filter((r) => JSON.stringify(r.body ?? '').includes('"blue"'));
    expect(replies).toHaveLength(1);
    const taskId = /Task ([0-9a-f-]+) · completed/.exec(last)?.[1];
    expect(JSON.stringify(replies[0]?.body)).toContain(`"taskId":"${taskId}"`);
  });

  it('a cut stream shows as reconnecting in the status block; the text ends exactly the agent\'s, each chunk once', async () => {
    const agent = await startTestAgent();
    agents.push(agent);
    const proxy = await startFaultProxy({ target: agent.origin });
    proxies.push(proxy);
    // The first stream is cut after 5 events; the first two resubscriptions are refused (503), so the
    // reconnecting state lasts long enough to be seen on the screen.
    proxy.addFault({ kind: 'cut', afterEvents: 5, mode: 'reset', times: 1, match: { sse: true } });
    proxy.addFault({ kind: 'status', status: 503, times: 2, match: { rpcMethod: 'SubscribeToTask' } });
    runInTerminal(['send', '--live', '-a', proxy.url, '--text', 'stream updates=2 chunks=30 delayMs=30']);
    const seen = await until((s) => s.includes('EXIT='), 30_000);
    expect(seen.some((s) => /· reconnecting \d/.test(s))).toBe(true);
    const last = seen.at(-1) as string;
    expect(last).toContain('EXIT=0');
    expect(last).toMatch(/Task [0-9a-f-]+ · completed/);
    expect(last).toMatch(/result: 30 chunks, \d+ bytes \(complete\)/);
    const text = last.replace(/\n/g, '');
    for (let i = 1; i <= 30; i++) expect(text.split(`chunk-${i};`).length - 1, `chunk-${i}`).toBe(1);
  });
});
