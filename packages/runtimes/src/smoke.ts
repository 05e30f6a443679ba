// The runtime smoke (issue 21): what an app does with @a2a-tether/core, run inside each JavaScript runtime
// (workerd, Deno, Bun, Node 22 and 24) against the testkit agent on loopback. It uses only WHATWG APIs
// (fetch, streams, WebCrypto, timers) through core, never a runtime's own: the host (scripts in this
// package) starts the agent, runs this in the runtime and checks the report it returns.
import { connect, TetherError } from '@a2a-tether/core';
import type { A2AClient, Task, TaskHandle } from '@a2a-tether/core';
import { cardVerifier } from '@a2a-tether/core/signing';
import { webSocketBinding } from './websocket-binding.js';

/** What the host hands the smoke. */
export interface SmokeConfig {
  /** The testkit agent, direct. Its card is signed with {@link trustedKey}. */
  agent: string;
  /** The same agent through a fault proxy that resets the first stream of a task after a few events. */
  cutAgent: string;
  /** The public JWK (with `kid` and `alg`) the card is signed with. */
  trustedKey: JsonWebKey & { kid: string };
  /** Another public JWK: a verifier that trusts only it must refuse the card. */
  otherKey: JsonWebKey & { kid: string };
  /** `websocket`: connect with the WebSocket binding (src/websocket-binding.ts), which the agents' cards list first. */
  binding?: 'websocket' | undefined;
}

/** One check of the smoke. */
export interface SmokeCheck {
  name: string;
  ok: boolean;
  /** What was seen (on failure, what was wrong). */
  detail: string;
  ms: number;
}

/** The smoke's report: the runtime it ran in and each check. */
export interface SmokeReport {
  runtime: string;
  checks: SmokeCheck[];
}

/** Deno, Bun, Node or workerd, with a version where the runtime tells it. */
export function runtimeName(): string {
  const g = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string }; process?: { versions?: { node?: string } }; navigator?: { userAgent?: string } };
  if (g.Deno) return `deno ${g.Deno.version.deno}`;
  if (g.Bun) return `bun ${g.Bun.version}`;
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  if (g.process?.versions?.node) return `node ${g.process.versions.node}`;
  return g.navigator?.userAgent ?? 'unknown';
}

class CheckFailed extends Error {}

function expect(condition: boolean, what: string): void {
  if (!condition) throw new CheckFailed(what);
}

/** The text of every text part of the task's artifact `id`. */
function artifactText(task: Task, id: string): string {
  const artifact = task.artifacts.find((a) => a.artifactId === id);
  return (artifact?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

function chunks(n: number): string {
  return Array.from({ length: n }, (_, i) => `chunk-${i + 1};`).join('');
}

/** Reads the handle's events until `stop` says so (or they end); returns the event types seen. */
async function eventsUntil(task: TaskHandle, stop: (event: { type: string; state?: string }) => boolean): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of task.events()) {
    seen.push(event.type === 'status' || event.type === 'connection' ? `${event.type}:${event.state}` : event.type);
    if (stop(event as { type: string; state?: string })) break;
  }
  return seen;
}

/** Runs every check against the agent; never throws (a failure is a check with `ok: false`). */
export async function smoke(config: SmokeConfig): Promise<SmokeReport> {
  const checks: SmokeCheck[] = [];
  const check = async (name: string, body: () => Promise<string>): Promise<void> => {
    const started = Date.now();
    try {
      checks.push({ name, ok: true, detail: await body(), ms: Date.now() - started });
    } catch (error) {
      const detail = error instanceof TetherError ? `${error.code}: ${error.message}` : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      checks.push({ name, ok: false, detail, ms: Date.now() - started });
    }
  };
  // Over WebSocket, every client has the binding; the cards list its interface first.
  const bindings = config.binding === 'websocket' ? { bindings: [webSocketBinding()] } : {};
  const expected = config.binding === 'websocket' ? 'WEBSOCKET' : 'JSONRPC';
  let client: A2AClient | undefined;
  const direct = (): A2AClient => {
    if (!client) throw new CheckFailed('no client: connect failed');
    return client;
  };

  await check('connect, card signature verified', async () => {
    client = await connect(config.agent, { ...bindings, verifyCard: cardVerifier({ trustedKeys: [config.trustedKey] }) });
    expect(client.card.name.length > 0, 'the card has no name');
    expect(client.interface.binding === expected, `connected over ${client.interface.binding}, not ${expected}`);
    return `${client.card.name} over ${client.interface.binding} v${client.interface.protocolVersion}`;
  });

  await check('a card signed by another key is refused', async () => {
    try {
      await connect(config.agent, { ...bindings, verifyCard: cardVerifier({ trustedKeys: [config.otherKey] }), cardCache: false });
    } catch (error) {
      expect(error instanceof TetherError && error.code === 'SIGNATURE_INVALID', `refused with ${String(error)}, not SIGNATURE_INVALID`);
      return 'SIGNATURE_INVALID';
    }
    throw new CheckFailed('the card was accepted');
  });

  await check('send', async () => {
    const result = await direct().sendMessage('echo hello');
    expect(result.kind === 'message', `answered with a ${result.kind}`);
    const text = result.kind === 'message' ? result.parts.map((p) => ('text' in p ? p.text : '')).join('') : '';
    expect(text === 'echo: echo hello', `answered "${text}"`);
    return text;
  });

  await check('stream', async () => {
    const kinds: string[] = [];
    let text = '';
    let last = '';
    for await (const event of direct().streamMessage('stream updates=2 chunks=3 delayMs=2')) {
      kinds.push(event.kind);
      if (event.kind === 'artifact-update') text += event.artifact.parts.map((p) => ('text' in p ? p.text : '')).join('');
      if (event.kind === 'status-update') last = event.status.state;
    }
    expect(last === 'completed', `the stream ended at ${last}`);
    expect(text === chunks(3), `streamed "${text}"`);
    return `${kinds.length} events, ${text}`;
  });

  await check('start → done through a cut stream', async () => {
    const cut = await connect(config.cutAgent, bindings);
    expect(cut.interface.binding === expected, `the cut agent is reached over ${cut.interface.binding}`);
    const task = await cut.start('stream updates=3 chunks=6 delayMs=5');
    const seen = await eventsUntil(task, () => false);
    const result = await task.done();
    expect(result.status.state === 'completed', `ended ${result.status.state}`);
    expect(artifactText(result, 'result') === chunks(6), `artifact "${artifactText(result, 'result')}"`);
    expect(seen.includes('connection:reconnecting'), `no reconnect seen: ${seen.join(' ')}`);
    return `completed with ${chunks(6)} after ${seen.filter((s) => s === 'connection:reconnecting').length} reconnect(s)`;
  });

  await check('a pause answered', async () => {
    const task = await direct().start('input');
    const seen = await eventsUntil(task, (e) => e.type === 'status' && e.state === 'input-required');
    expect(seen.includes('status:input-required'), `never paused: ${seen.join(' ')}`);
    await task.reply('yes');
    const result = await task.done();
    expect(result.status.state === 'completed', `ended ${result.status.state}`);
    expect(artifactText(result, 'answer') === 'got: yes', `answer "${artifactText(result, 'answer')}"`);
    return 'input-required → reply → completed (got: yes)';
  });

  await check('cancel, confirmed', async () => {
    const task = await direct().start('slow steps=200 delayMs=20');
    await eventsUntil(task, (e) => e.type === 'status' && e.state === 'working');
    const outcome = await task.cancel({ reason: 'smoke' });
    expect(outcome.requested && outcome.confirmed && outcome.state === 'canceled', `outcome ${JSON.stringify(outcome)}`);
    const result = await task.done();
    expect(result.status.state === 'canceled', `done() gave ${result.status.state}`);
    return 'requested, confirmed: canceled';
  });

  return { runtime: runtimeName(), checks };
}
