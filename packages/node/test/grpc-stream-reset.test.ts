// Issue 33, point 8: a raw stream whose connection is reset mid-way throws STREAM_INTERRUPTED with its task
// id over gRPC too, as over the HTTP bindings (packages/core/test/engine-deviations.test.ts): a gRPC agent
// that writes two events and keeps the stream open, behind a TCP proxy that resets the connection.
import { connect, TetherError } from '@a2a-tether/node';
import type { A2AClient, StreamEvent } from '@a2a-tether/node';
import { fromJson, toBinary } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { startTcpProxy, type TcpProxy } from '@a2a-tether/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { a2aMessage, a2aRegistry } from '../src/grpc/a2a-schema.js';
import { grpcBinding } from '../src/grpc-entry.js';

const raw = (bytes: Buffer): Buffer => bytes;
function encode(type: string, json: JsonValue): Buffer {
  const desc = a2aMessage(type);
  return Buffer.from(toBinary(desc, fromJson(desc, json, { registry: a2aRegistry() })));
}

const TASK_ID = 't-reset';
const EVENTS = [
  { task: { id: TASK_ID, contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } },
  { artifactUpdate: { taskId: TASK_ID, contextId: 'c-1', artifact: { artifactId: 'a', parts: [{ text: 'one' }] } } },
];

let server: grpc.Server;
let port: number;
let proxy: TcpProxy | undefined;
const open: grpc.ServerWritableStream<Buffer, Buffer>[] = [];

beforeAll(async () => {
  server = new grpc.Server();
  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of ['SendStreamingMessage', 'SubscribeToTask']) {
    definition[method] = { path: `/lf.a2a.v1.A2AService/${method}`, requestStream: false, responseStream: true, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw, originalName: method };
    // Two events, then the stream stays open (the proxy breaks it).
    handlers[method] = (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      for (const event of EVENTS) call.write(encode('StreamResponse', event));
      open.push(call);
    };
  }
  server.addService(definition, handlers);
  port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))));
});
afterEach(async () => {
  for (const call of open.splice(0)) call.end();
  await proxy?.close();
  proxy = undefined;
});
afterAll(() => {
  server.forceShutdown();
});

async function clientThroughProxy(): Promise<A2AClient> {
  proxy = await startTcpProxy({ target: { host: '127.0.0.1', port } });
  const card = {
    name: 'gRPC agent behind a proxy',
    description: 'test',
    version: '1',
    supportedInterfaces: [{ url: proxy.address, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  return connect(`http://${proxy.address}`, { card, cardCache: false, bindings: [grpcBinding()] });
}

/** Reads until two events arrived, resets the connection, and reads on: the events and what was thrown. */
async function readThenReset(stream: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      if (events.length === EVENTS.length) proxy?.cutLink('reset');
    }
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

describe('a raw gRPC stream reset mid-way', () => {
  it.each([
    ['streamMessage() (the task id learned from its first event)', (c: A2AClient) => c.streamMessage('go')],
    ['subscribe()', (c: A2AClient) => c.subscribe(TASK_ID)],
  ] as const)('%s throws STREAM_INTERRUPTED with the task id', async (_, opener) => {
    const client = await clientThroughProxy();
    const read = await readThenReset(opener(client));
    expect(read.events).toHaveLength(2);
    expect(read.error).toBeInstanceOf(TetherError);
    expect(read.error).toMatchObject({ code: 'STREAM_INTERRUPTED', taskId: TASK_ID, isRetryable: true });
    expect((read.error as TetherError).cause).toMatchObject({ code: 'NETWORK' });
  });
});
