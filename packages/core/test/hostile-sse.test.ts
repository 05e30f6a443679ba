import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient } from '../src/index.js';
import { json, rpcFrame, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// Issue 10: an SSE body from a hostile (or merely unusual) agent, through the public `streamMessage()`.

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

async function client(options: { maxEventSize?: number } = {}): Promise<A2AClient> {
  server.on('GET /.well-known/agent-card.json', (_req, res) => json(res, 200, v1Card(server.origin)));
  return connect(server.url, { cardCache: false, ...options });
}

const working = { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } };
const completed = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } };
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An SSE frame whose lines end with `eol` (the scripted server's frames end with LF). */
function frame(result: unknown, eol: string): string {
  return rpcFrame(result).replace(/\n/g, eol);
}

describe('streamMessage on hostile SSE bodies', () => {
  it('delivers an event ended by CR CR while the body stays open', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame(working, '\r')); // and nothing more until the client closes
    });
    const stream = c.streamMessage('hi');
    const first = await Promise.race([stream[Symbol.asyncIterator]().next(), pause(2_000).then(() => 'held back')]);
    stream.abort();
    expect(first).toMatchObject({ done: false, value: { kind: 'task', id: 't1' } });
  });

  it('delivers the final event when the body ends right after a CR that a later chunk follows', async () => {
    const c = await client();
    server.on('POST /rpc', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(rpcFrame(working));
      res.write(`${rpcFrame(completed).slice(0, -1)}\r`); // "data: …\n\r": the CR is a blank line
      await pause(50);
      res.end('x');
    });
    const events = [];
    for await (const event of c.streamMessage('hi')) events.push(event);
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update']);
  });

  it('throws a TetherError, not the parser’s Error, after a full line ended by CR and a lone 0xE2', async () => {
    const maxEventSize = 1_000;
    const c = await client({ maxEventSize });
    server.on('POST /rpc', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(Buffer.concat([Buffer.from(`data: ${'x'.repeat(maxEventSize - 7)}\r`), Buffer.from([0xe2])]));
    });
    const error = await (async () => {
      try {
        for await (const _ of c.streamMessage('hi')) void _;
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'STREAM_INTERRUPTED' });
  });
});
