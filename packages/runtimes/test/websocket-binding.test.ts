// Pluggable bindings (issue 21): a WebSocket binding written only against the public `CustomBinding` /
// `Transport` interface (src/websocket-binding.ts), negotiated from the card like the built-in ones, with
// the task engine's guarantees over it: a cut WebSocket is resumed (SubscribeToTask over WebSocket again),
// not surfaced, and the task ends with exactly the agent's artifact.
import { connect, TaskNotFoundError, TetherError } from '@a2a-tether/core';
import type { CustomBinding } from '@a2a-tether/core';
import { startTestAgent, startWebSocketAgent, type TestAgent, type WebSocketAgent } from '@a2a-tether/testkit';
import { WebSocket as UndiciWebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webSocketBinding, type WebSocketClass } from '../src/websocket-binding.js';

// Node 20 has no global WebSocket; undici's is the one Node 22 ships.
const ws = (): CustomBinding => webSocketBinding({ WebSocket: UndiciWebSocket as unknown as WebSocketClass });
const chunks = (n: number): string => Array.from({ length: n }, (_, i) => `chunk-${i + 1};`).join('');

let agent: TestAgent;
let front: WebSocketAgent;
beforeAll(async () => {
  agent = await startTestAgent();
  front = await startWebSocketAgent({ target: agent.url });
});
afterAll(async () => {
  await front.close();
  await agent.close();
});

describe('a WebSocket binding through the public interface', () => {
  it('is chosen from the card (its interface is listed first), and sends, streams and reads over WebSocket', async () => {
    const client = await connect(front.url, { bindings: [ws()] });
    expect(client.interface).toMatchObject({ binding: 'WEBSOCKET', protocolVersion: '1.0', url: front.wsUrl });
    const before = front.methods.length;
    const answer = await client.sendMessage('echo over ws');
    expect(answer.kind === 'message' && answer.parts).toEqual([{ kind: 'text', text: 'echo: echo over ws' }]);
    let text = '';
    let last = '';
    for await (const event of client.streamMessage('stream updates=2 chunks=4 delayMs=2')) {
      if (event.kind === 'artifact-update') text += event.artifact.parts.map((p) => ('text' in p ? p.text : '')).join('');
      if (event.kind === 'status-update') last = event.status.state;
    }
    expect([text, last]).toEqual([chunks(4), 'completed']);
    expect(front.methods.slice(before)).toEqual(['SendMessage', 'SendStreamingMessage']);
    const error = await client.getTask('no-such-task').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskNotFoundError);
  });

  it('start() → done() through cut WebSockets: resumed over WebSocket, exactly the agent’s artifact', async () => {
    const client = await connect(front.url, { bindings: [ws()] });
    front.cutStreams(3, 2);
    const cutsBefore = front.cuts;
    const before = front.methods.length;
    const task = await client.start('stream updates=3 chunks=8 delayMs=10');
    const links: string[] = [];
    for await (const event of task.events()) if (event.type === 'connection') links.push(event.state);
    const result = await task.done();
    expect(result.status.state).toBe('completed');
    const parts = result.artifacts.find((a) => a.artifactId === 'result')?.parts ?? [];
    expect(parts.map((p) => ('text' in p ? p.text : '')).join('')).toBe(chunks(8));
    expect(parts).toHaveLength(8); // each chunk once: nothing replayed twice, nothing lost
    expect(front.cuts - cutsBefore).toBe(2);
    expect(links).toContain('reconnecting');
    expect(front.methods.slice(before)).toContain('SubscribeToTask');
    expect(front.methods.slice(before).every((m) => ['SendStreamingMessage', 'SubscribeToTask', 'GetTask'].includes(m))).toBe(true);
  });

  it('a pause answered and a cancel confirmed, over WebSocket', async () => {
    const client = await connect(front.url, { bindings: [ws()] });
    const paused = await client.start('input');
    for await (const event of paused.events()) if (event.type === 'status' && event.state === 'input-required') break;
    await paused.reply('yes');
    expect((await paused.done()).artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'got: yes' }]);
    const slow = await client.start('slow steps=200 delayMs=20');
    for await (const event of slow.events()) if (event.type === 'status' && event.state === 'working') break;
    expect(await slow.cancel()).toMatchObject({ requested: true, confirmed: true, state: 'canceled' });
  });
});

describe('negotiating bindings of your own', () => {
  it('a binding that asks for the headers of something that is not a URL gets a typed error', async () => {
    const own: CustomBinding = {
      name: 'WEBSOCKET',
      async create(context) {
        const transport = await ws().create(context);
        return Object.assign(Object.create(transport) as typeof transport, {
          sendMessage: async () => {
            await context.headers('127.0.0.1:9');
            throw new Error('unreachable');
          },
        });
      },
    };
    const client = await connect(front.url, { bindings: [own] });
    const error = await client.sendMessage('hi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/not a URL/) as unknown });
  });

  it('without the binding, or when preferring another, the card’s WebSocket interface is passed over', async () => {
    expect((await connect(front.url)).interface.binding).toBe('JSONRPC');
    expect((await connect(front.url, { bindings: [ws()], preferredBindings: ['HTTP+JSON', 'WEBSOCKET'] })).interface.binding).toBe('HTTP+JSON');
    const client = await connect(front.url, { bindings: [ws()], preferredBindings: ['websocket'] });
    expect(client.interfaces.map((i) => i.binding)).toEqual(['WEBSOCKET']);
  });

  it('a binding only speaks the versions it names; one that cannot be created is a typed error', async () => {
    const v03Only: CustomBinding = { ...ws(), protocolVersions: ['0.3'] };
    expect((await connect(front.url, { bindings: [v03Only] })).interface.binding).toBe('JSONRPC');
    const broken: CustomBinding = { name: 'WEBSOCKET', create: () => { throw new Error('no sockets here'); } };
    const error = (await connect(front.url, { bindings: [broken] }).catch((e: unknown) => e)) as TetherError;
    expect(error).toBeInstanceOf(TetherError);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('the binding WEBSOCKET could not be created');
    expect(error.message).toContain('no sockets here');
  });

  it('a WebSocket that cannot open is NETWORK with maybeDelivered false', async () => {
    const client = await connect(front.url, { bindings: [ws()], card: { ...(await (await fetch(`${front.url}/.well-known/agent-card.json`)).json()) as object, supportedInterfaces: [{ url: 'ws://127.0.0.1:1/a2a/ws', protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' }] } });
    const error = (await client.getTask('t').catch((e: unknown) => e)) as TetherError;
    expect(error.code).toBe('NETWORK');
    expect(error.maybeDelivered).toBe(false);
  });
});
