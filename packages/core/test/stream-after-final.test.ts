import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient, type StreamEvent } from '../src/index.js';
import { json, rpcFrame, sse, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// Issue 16: an agent may send events after the status that ends the stream. @voltagent/a2a-server (v0.3)
// was seen sending the completed status with `final: true`, then the artifact update, then ending the
// body. The raw stream must yield that artifact and end normally: once an event has let the stream end,
// the events after it do not make the end premature.

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

/** A v0.3 card with one JSON-RPC interface at /rpc. */
function v03Card(origin: string): Record<string, unknown> {
  return {
    name: 'after-final',
    description: 'sends its artifact after the final status',
    version: '1',
    protocolVersion: '0.3.0',
    url: `${origin}/rpc`,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

async function client(card: Record<string, unknown>, preferredBindings?: ('JSONRPC' | 'HTTP+JSON')[]): Promise<A2AClient> {
  server.on('GET /.well-known/agent-card.json', (_req, res) => json(res, 200, card));
  return connect(server.url, { cardCache: false, ...(preferredBindings ? { preferredBindings } : {}) });
}

async function drain(stream: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const ids = { taskId: 't-1', contextId: 'c-1' };

describe('events after the final status, then the end of the body', () => {
  it('v0.3 JSON-RPC: completed with final: true, then the artifact update: streamMessage() yields the artifact and ends normally', async () => {
    const c = await client(v03Card(server.origin));
    server.on('POST /rpc', (_req, res) =>
      sse(res, [
        rpcFrame({ kind: 'task', id: ids.taskId, contextId: ids.contextId, status: { state: 'submitted' } }),
        rpcFrame({ kind: 'status-update', ...ids, status: { state: 'working' }, final: false }),
        rpcFrame({ kind: 'status-update', ...ids, status: { state: 'completed' }, final: true }),
        rpcFrame({ kind: 'artifact-update', ...ids, artifact: { artifactId: 'answer', parts: [{ kind: 'text', text: 'the answer' }] }, lastChunk: true }),
      ]),
    );
    const { events, error } = await drain(c.streamMessage('hello'));
    expect(error).toBeUndefined();
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update', 'status-update', 'artifact-update']);
    const last = events[3];
    expect(last?.kind === 'artifact-update' && last.artifact.parts).toEqual([{ kind: 'text', text: 'the answer' }]);
  });

  it.each([['JSONRPC'], ['HTTP+JSON']] as const)('v1.0 %s: a completed status, then an artifact update: both yielded, a normal end', async (binding) => {
    const c = await client(v1Card(server.origin), [binding]);
    const frames = [
      { task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_WORKING' } } },
      { statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED' } } },
      { artifactUpdate: { ...ids, artifact: { artifactId: 'answer', parts: [{ text: 'late' }] }, lastChunk: true } },
    ];
    const frame = (result: unknown): string => (binding === 'JSONRPC' ? rpcFrame(result) : `data: ${JSON.stringify(result)}\n\n`);
    server.on(binding === 'JSONRPC' ? 'POST /rpc' : 'POST /rest/message:stream', (_req, res) => sse(res, frames.map(frame)));
    const { events, error } = await drain(c.streamMessage('hello'));
    expect(error).toBeUndefined();
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update', 'artifact-update']);
  });

  it('a stream that ends after an artifact, with no final status before it, is still STREAM_INTERRUPTED', async () => {
    const c = await client(v03Card(server.origin));
    server.on('POST /rpc', (_req, res) =>
      sse(res, [
        rpcFrame({ kind: 'status-update', ...ids, status: { state: 'working' }, final: false }),
        rpcFrame({ kind: 'artifact-update', ...ids, artifact: { artifactId: 'answer', parts: [{ kind: 'text', text: 'part' }] } }),
      ]),
    );
    const { events, error } = await drain(c.streamMessage('hello'));
    expect(events.map((e) => e.kind)).toEqual(['status-update', 'artifact-update']);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).code).toBe('STREAM_INTERRUPTED');
  });
});
