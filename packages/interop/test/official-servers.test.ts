import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';
import { sseData, taskIn, v03JsonRpc, v03Rest, v1JsonRpc, v1Rest } from '../src/wire-dialects.js';
import type { Dialect, WireRequest } from '../src/wire-dialects.js';

// Smoke test of the harness itself: the official servers answer raw fetch the way the
// scenario grammar promises, on all four version × binding combinations.

let v1: OfficialServer;
let v03: OfficialServer;

beforeAll(async () => {
  [v1, v03] = await Promise.all([startOfficialV1Server(), startOfficialV03Server()]);
});

afterAll(async () => {
  await Promise.all([v1?.close(), v03?.close()]);
});

const combos: { name: string; dialect: () => Dialect }[] = [
  { name: 'v1 JSON-RPC', dialect: () => v1JsonRpc(v1) },
  { name: 'v1 REST', dialect: () => v1Rest(v1) },
  { name: 'v0.3 JSON-RPC', dialect: () => v03JsonRpc(v03) },
  { name: 'v0.3 REST', dialect: () => v03Rest(v03) },
];

async function call(request: WireRequest): Promise<Response> {
  return fetch(request.url, {
    method: request.method,
    headers: { ...request.headers },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
}

async function json(request: WireRequest): Promise<unknown> {
  const response = await call(request);
  expect(response.headers.get('content-type')).toMatch(/json/);
  return response.json();
}

interface StreamEvent {
  readonly kind: 'task' | 'message' | 'status' | 'artifact';
  readonly state?: string;
  readonly text?: string;
}

/** `TASK_STATE_INPUT_REQUIRED`, `input-required`, `TASK_STATE_CANCELLED` → `input-required`, `canceled`. */
function normaliseState(state: unknown): string {
  return String(state).replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-').replace('cancelled', 'canceled');
}

function partsText(parts: unknown): string {
  return Array.isArray(parts) ? parts.map((part: { text?: string }) => part.text ?? '').join('') : '';
}

/** One SSE payload in any of the four dialects → the fields this test asserts on. */
function toEvent(data: unknown): StreamEvent {
  const envelope = data as { jsonrpc?: string; result?: unknown; error?: unknown };
  if (envelope.error !== undefined) throw new Error(`stream error ${JSON.stringify(envelope.error)}`);
  const payload = (envelope.jsonrpc === undefined ? data : envelope.result) as Record<string, Record<string, unknown>>;
  // v0.3 JSON-RPC: a bare object with `kind`; everything else: a one-key wrapper.
  const kindOf = payload['kind'] as unknown as string | undefined;
  const [key, value] = kindOf === undefined ? (Object.entries(payload)[0] ?? ['', {}]) : [kindOf, payload];
  switch (key) {
    case 'task':
      return { kind: 'task', state: normaliseState((value['status'] as { state: string }).state) };
    case 'statusUpdate':
    case 'status-update':
      return { kind: 'status', state: normaliseState((value['status'] as { state: string }).state) };
    case 'artifactUpdate':
    case 'artifact-update':
      return { kind: 'artifact', text: partsText((value['artifact'] as { parts: unknown }).parts) };
    case 'message':
      return { kind: 'message', text: partsText(value['parts'] ?? value['content']) };
    default:
      throw new Error(`unexpected stream payload ${JSON.stringify(data)}`);
  }
}

async function stream(request: WireRequest): Promise<StreamEvent[]> {
  const response = await call(request);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return sseData(await response.text()).map(toEvent);
}

const states = (events: readonly StreamEvent[]): (string | undefined)[] =>
  events.filter((event) => event.state !== undefined).map((event) => event.state);

const artifactText = (events: readonly StreamEvent[]): string =>
  events.filter((event) => event.kind === 'artifact').map((event) => event.text).join('');

describe('official servers', () => {
  it('serve their agent cards with the real port', async () => {
    const v1Card = (await (await fetch(v1.cardUrl, { headers: { 'A2A-Version': '1.0' } })).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
      capabilities: { streaming: boolean; pushNotifications: boolean; extendedAgentCard: boolean };
    };
    expect(v1Card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.url])).toEqual([
      ['JSONRPC', '1.0', v1.jsonRpcUrl],
      ['HTTP+JSON', '1.0', v1.restUrl],
    ]);
    expect(v1.jsonRpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/a2a\/jsonrpc$/);
    expect(v1Card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: true });

    const v03Card = (await (await fetch(v03.cardUrl)).json()) as Record<string, unknown>;
    expect(v03Card).toMatchObject({
      url: v03.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3.0',
      additionalInterfaces: [
        { url: v03.jsonRpcUrl, transport: 'JSONRPC' },
        { url: v03.restUrl, transport: 'HTTP+JSON' },
      ],
      capabilities: { streaming: true, pushNotifications: true },
    });
  });

  it('count every message the executor receives, once', async () => {
    for (const [server, dialect] of [
      [v1, v1JsonRpc(v1)],
      [v03, v03JsonRpc(v03)],
    ] as const) {
      const before = server.executions;
      const request = dialect.send('echo once', { blocking: true });
      const messageId = (request.body as { params: { message: { messageId: string } } }).params.message.messageId;
      const body = (await json(request)) as { result: unknown };
      expect(JSON.stringify(body.result)).toContain('echo: echo once');
      expect(server.executions).toBe(before + 1);
      expect(server.receivedMessageIds.at(-1)).toBe(messageId);
    }
  });

  describe.each(combos)('$name', ({ dialect }) => {
    it('streams `stream updates=2 chunks=3` in order', async () => {
      const events = await stream(dialect().send('stream updates=2 chunks=3', { blocking: true, stream: true }));
      expect(events.map((event) => event.kind)).toEqual([
        'task',
        'status',
        'artifact',
        'status',
        'artifact',
        'artifact',
        'status',
      ]);
      expect(states(events)).toEqual(['submitted', 'working', 'working', 'completed']);
      expect(artifactText(events)).toBe('chunk-0;chunk-1;chunk-2;');
    });

    it('completes an `input` task after the follow-up', async () => {
      const d = dialect();
      const firstTurn = sseData(await (await call(d.send('input', { blocking: true, stream: true }))).text());
      const task = taskIn(firstTurn[0]);
      expect(states(firstTurn.map(toEvent))).toEqual(['submitted', 'working', 'input-required']);

      const followUp = await stream(d.send('blue', { blocking: true, stream: true, taskId: task.id, contextId: task.contextId }));
      expect(states(followUp).at(-1)).toBe('completed');
      expect(artifactText(followUp)).toBe('got: blue');
    });

    it('cancels a `slow` task', async () => {
      const d = dialect();
      const started = taskIn(await json(d.send('slow steps=50 delayMs=20', { blocking: false })));
      expect(['submitted', 'working']).toContain(normaliseState(started.state));

      const canceled = taskIn(await json(d.cancel(started.id)));
      expect(canceled.id).toBe(started.id);
      expect(normaliseState(canceled.state)).toBe('canceled');

      const stored = taskIn(await json(d.get(started.id)));
      expect(normaliseState(stored.state)).toBe('canceled');
    });
  });

  it.each([
    ['v1', startOfficialV1Server, v1JsonRpc],
    ['v0.3', startOfficialV03Server, v03JsonRpc],
  ] as const)('%s close() ends an open stream and its scenario', async (_name, start, dialectOf) => {
    const server = await start();
    const request = dialectOf(server).send('slow steps=1000 delayMs=50', { blocking: true, stream: true });
    const response = await call(request);
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    expect((await reader.read()).done).toBe(false);

    await server.close();
    // The body ends (or errors) promptly instead of waiting 50 s for the scenario.
    const ended = await reader.read().then(
      async function drain(chunk): Promise<boolean> {
        return chunk.done ? true : reader.read().then(drain);
      },
      () => true,
    );
    expect(ended).toBe(true);
  });
});
