// The gRPC binding (`@a2a-tether/node/grpc`) against a gRPC agent that misbehaves on purpose: a raw
// `lf.a2a.v1.A2AService` on grpc-js whose handlers send whatever bytes and statuses a case needs. What
// the binding sends (metadata, tenant), and every way an answer can be wrong: not protobuf, an A2A error in
// the status details (or details that are garbage), an event of another task, an error inside a stream, an
// unimplemented method, an agent that never answers, an abort, an agent that is not there.
import { A2AError, connect, DEFAULTS, TaskNotFoundError, TetherError, UnsupportedOperationError } from '@a2a-tether/node';
import type { A2AClient, StreamEvent } from '@a2a-tether/node';
import { fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { a2aMessage, a2aRegistry } from '../src/grpc/a2a-schema.js';
import { errorInfoOf } from '../src/grpc/grpc-status.js';
import { grpcBinding } from '../src/grpc-entry.js';

const METHODS: Record<string, boolean> = {
  SendMessage: false,
  SendStreamingMessage: true,
  GetTask: false,
  CancelTask: false,
  SubscribeToTask: true,
  ListTasks: false,
  CreateTaskPushNotificationConfig: false,
  GetTaskPushNotificationConfig: false,
  ListTaskPushNotificationConfigs: false,
};
const raw = (bytes: Buffer): Buffer => bytes;

function encode(type: string, json: JsonValue): Buffer {
  const desc = a2aMessage(type);
  return Buffer.from(toBinary(desc, fromJson(desc, json, { registry: a2aRegistry() })));
}
function decode(type: string, bytes: Buffer): unknown {
  const desc = a2aMessage(type);
  return toJson(desc, fromBinary(desc, bytes), { registry: a2aRegistry() });
}

/** A serialized `google.rpc.Status` carrying one `ErrorInfo`. */
function statusDetails(code: number, message: string, reason: string): Buffer {
  const info = new BinaryWriter().uint32(10).string(reason).uint32(18).string('a2a-protocol.org').finish();
  const any = new BinaryWriter().uint32(10).string('type.googleapis.com/google.rpc.ErrorInfo').uint32(18).bytes(info).finish();
  return Buffer.from(new BinaryWriter().uint32(8).int32(code).uint32(18).string(message).uint32(26).bytes(any).finish());
}
function failure(code: number, details: string, detailsBin?: Buffer): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  if (detailsBin) metadata.set('grpc-status-details-bin', detailsBin);
  return { code, details, metadata };
}

const TASK = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };
type Unary = (request: Buffer, metadata: grpc.Metadata, reply: (error: Partial<grpc.StatusObject> | null, bytes?: Buffer) => void) => void;
type Streaming = (request: Buffer, call: grpc.ServerWritableStream<Buffer, Buffer>) => void;
let onUnary: Record<string, Unary> = {};
let onStream: Record<string, Streaming> = {};
const seen: Array<{ method: string; request: unknown; metadata: Record<string, unknown> }> = [];

let server: grpc.Server;
let port: number;
beforeAll(async () => {
  server = new grpc.Server();
  const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const [method, streaming] of Object.entries(METHODS)) {
    definition[method] = { path: `/lf.a2a.v1.A2AService/${method}`, requestStream: false, responseStream: streaming, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw, originalName: method };
    const record = (request: Buffer, metadata: grpc.Metadata): void => {
      const type =
        {
          SendMessage: 'SendMessageRequest',
          SendStreamingMessage: 'SendMessageRequest',
          GetTask: 'GetTaskRequest',
          CancelTask: 'CancelTaskRequest',
          SubscribeToTask: 'SubscribeToTaskRequest',
          ListTasks: 'ListTasksRequest',
          CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
          GetTaskPushNotificationConfig: 'GetTaskPushNotificationConfigRequest',
          ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigsRequest',
        }[method] ?? '';
      seen.push({ method, request: decode(type, request), metadata: metadata.getMap() });
    };
    handlers[method] = streaming
      ? (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
          record(call.request, call.metadata);
          const handler = onStream[method];
          if (handler) handler(call.request, call);
          else call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'not here' });
        }
      : (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
          record(call.request, call.metadata);
          const handler = onUnary[method];
          if (handler) handler(call.request, call.metadata, (error, bytes) => callback(error as grpc.ServiceError | null, bytes));
          else callback({ code: grpc.status.UNIMPLEMENTED, details: 'not here' } as grpc.ServiceError);
        };
  }
  server.addService(definition, handlers);
  port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))));
});
afterAll(() => {
  server.forceShutdown();
});
beforeEach(() => {
  onUnary = {};
  onStream = {};
  seen.length = 0;
});

function card(tenant?: string): Record<string, unknown> {
  return {
    name: 'misbehaving gRPC agent',
    description: 'test',
    version: '1',
    supportedInterfaces: [{ url: `127.0.0.1:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0', ...(tenant ? { tenant } : {}) }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

function open(options: Parameters<typeof connect>[1] = {}, tenant?: string): Promise<A2AClient> {
  return connect(`http://127.0.0.1:${port}`, { card: card(tenant), cardCache: false, bindings: [grpcBinding()], ...options });
}

async function failureOf(promise: Promise<unknown>): Promise<TetherError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TetherError);
  return error as TetherError;
}

async function drain(stream: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

describe('what the gRPC binding sends', () => {
  it('the A2A version, the extensions, the client’s headers and the interface’s tenant', async () => {
    onUnary['SendMessage'] = (_request, _metadata, reply) => reply(null, encode('SendMessageResponse', { message: { messageId: 'm-r', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } }));
    const client = await open({ headers: { 'X-Team': 'blue' }, extensions: ['https://example.com/ext/a'] }, 'acme');
    const answer = await client.sendMessage({ text: 'hi', messageId: 'm-1' });
    expect(answer).toMatchObject({ kind: 'message', parts: [{ kind: 'text', text: 'ok' }] });
    const [call] = seen;
    expect(call?.metadata).toMatchObject({ 'a2a-version': '1.0', 'a2a-extensions': 'https://example.com/ext/a', 'x-team': 'blue' });
    expect(call?.request).toMatchObject({ tenant: 'acme', message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
  });

  it('credentials from `auth` only where `auth.origins` allows the gRPC origin', async () => {
    onUnary['GetTask'] = (_request, _metadata, reply) => reply(null, encode('Task', TASK));
    // The card was read from another origin than the gRPC interface's: its credentials stay there.
    const elsewhere = (auth: Record<string, unknown>): Promise<A2AClient> => connect('http://127.0.0.1:1/', { card: card(), cardCache: false, bindings: [grpcBinding()], auth });
    await (await elsewhere({ bearer: 'secret-1' })).getTask('t-1');
    await (await elsewhere({ bearer: 'secret-2', origins: [`http://127.0.0.1:${port}`] })).getTask('t-1');
    await (await open({ auth: { bearer: 'secret-3' } })).getTask('t-1');
    expect(seen.map((call) => call.metadata['authorization'])).toEqual([undefined, 'Bearer secret-2', 'Bearer secret-3']);
  });
});

describe('a gRPC agent that misbehaves', () => {
  it('an answer that is not the protobuf it should be: INVALID_RESPONSE', async () => {
    onUnary['GetTask'] = (_request, _metadata, reply) => reply(null, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]));
    const error = await failureOf((await open()).getTask('t-1'));
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.message).toMatch(/Task/);
  });

  it('an A2A error in the status details: the same typed error as over HTTP; garbage details: still typed', async () => {
    onUnary['GetTask'] = (_request, _metadata, reply) => reply(failure(grpc.status.NOT_FOUND, 'no task t-9', statusDetails(5, 'no task t-9', 'TASK_NOT_FOUND')));
    const client = await open();
    const missing = await failureOf(client.getTask('t-9'));
    expect(missing).toBeInstanceOf(TaskNotFoundError);
    expect(missing).toMatchObject({ a2aCode: -32001, reason: 'TASK_NOT_FOUND', agentMessage: 'no task t-9', maybeDelivered: true });

    onUnary['GetTask'] = (_request, _metadata, reply) => reply(failure(grpc.status.FAILED_PRECONDITION, 'odd', Buffer.from([0x1a, 0x7f, 0x01])));
    const odd = await failureOf(client.getTask('t-9', { maxRetries: 0 }));
    expect(odd).toBeInstanceOf(A2AError);
    expect(odd.isRetryable).toBe(false);
    expect(errorInfoOf(Buffer.from([0x1a, 0x7f, 0x01]))).toBeUndefined();
  });

  it('a method the agent does not implement: UNSUPPORTED_OPERATION, nothing delivered', async () => {
    const error = await failureOf((await open()).listTasks({}));
    expect(error).not.toBeInstanceOf(UnsupportedOperationError);
    expect(error).toMatchObject({ code: 'UNSUPPORTED_OPERATION', maybeDelivered: false });
  });

  it('an event of another task in a stream: PROTOCOL_VIOLATION, after the events before it', async () => {
    onStream['SendStreamingMessage'] = (_request, call) => {
      call.write(encode('StreamResponse', { task: TASK }));
      call.write(encode('StreamResponse', { statusUpdate: { taskId: 'someone-else', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } }));
      call.end();
    };
    const { events, error } = await drain((await open()).streamMessage('go'));
    expect(events.map((e) => e.kind)).toEqual(['task']);
    expect(error).toMatchObject({ code: 'PROTOCOL_VIOLATION' });
  });

  it('an A2A error inside a stream: typed, marked in-stream; a stream event that is not protobuf: MALFORMED_EVENT', async () => {
    onStream['SubscribeToTask'] = (_request, call) => {
      call.write(encode('StreamResponse', { task: TASK }));
      call.emit('error', failure(grpc.status.NOT_FOUND, 'gone', statusDetails(5, 'gone', 'TASK_NOT_FOUND')));
    };
    const client = await open();
    const first = await drain(client.subscribe('t-1'));
    expect(first.events).toHaveLength(1);
    expect(first.error).toBeInstanceOf(TaskNotFoundError);
    expect(first.error).toMatchObject({ inStream: true });

    onStream['SubscribeToTask'] = (_request, call) => {
      call.write(Buffer.from([0x0a, 0x05, 0x01]));
      call.end();
    };
    const second = await drain(client.subscribe('t-1'));
    expect(second.error).toMatchObject({ code: 'MALFORMED_EVENT' });
  });

  it('an agent that never answers: TIMEOUT within timeoutMs (unary and stream); an abort: ABORTED', async () => {
    onUnary['GetTask'] = () => undefined;
    onStream['SubscribeToTask'] = () => undefined;
    const client = await open();
    expect(await failureOf(client.getTask('t-1', { timeoutMs: 150, maxRetries: 0 }))).toMatchObject({ code: 'TIMEOUT' });
    const stream = await drain(client.subscribe('t-1', { timeoutMs: 150 }));
    expect(stream.error).toMatchObject({ code: 'TIMEOUT' });
    const controller = new AbortController();
    const pending = client.getTask('t-1', { signal: controller.signal, maxRetries: 0 });
    setTimeout(() => controller.abort(), 50);
    expect(await failureOf(pending)).toMatchObject({ code: 'ABORTED' });
  });

  it('an agent that is not there: NETWORK, retryable', async () => {
    const probe = new grpc.Server();
    const closedPort = await new Promise<number>((resolve, reject) => probe.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))));
    probe.forceShutdown();
    const gone = { ...card(), supportedInterfaces: [{ url: `127.0.0.1:${closedPort}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }] };
    const client = await connect(`http://127.0.0.1:${closedPort}`, { card: gone, cardCache: false, bindings: [grpcBinding()] });
    const error = await failureOf(client.getTask('t-1', { maxRetries: 0, timeoutMs: 5_000 }));
    expect(error).toMatchObject({ code: 'NETWORK', isRetryable: true });
  });
});

// Issue 33, point 6: gRPC like HTTP — the client's default deadline on every call (streams until they
// open), a poll over gRPC that stalls retries, and what an agent quotes of our credentials is redacted.
describe('gRPC like HTTP', () => {
  const FAST = { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 5, pollMinMs: 10, pollMaxMs: 20, maxRequestsPerWindow: 1_000 };

  it('an agent that never answers: TIMEOUT at the client’s default timeoutMs (unary and stream), without a per-call limit', async () => {
    onUnary['GetTask'] = () => undefined;
    onUnary['CancelTask'] = () => undefined;
    onStream['SubscribeToTask'] = () => undefined;
    const client = await open({ timeoutMs: 100 });
    expect(await failureOf(client.getTask('t-1', { maxRetries: 0 }))).toMatchObject({ code: 'TIMEOUT', isRetryable: true });
    expect(await failureOf(client.cancelTask('t-1'))).toMatchObject({ code: 'TIMEOUT' });
    const stream = await drain(client.subscribe('t-1'));
    expect(stream.error).toMatchObject({ code: 'TIMEOUT' });
  }, 10_000);

  it('a task polled over gRPC: a GetTask that stalls times out and the next one is asked', async () => {
    onUnary['SendMessage'] = (_request, _metadata, reply) => reply(null, encode('SendMessageResponse', { task: TASK }));
    let asked = 0;
    onUnary['GetTask'] = (_request, _metadata, reply) => {
      asked += 1;
      if (asked === 1) return; // never answered
      reply(null, encode('Task', { ...TASK, status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'a-1', parts: [{ text: 'done' }] }] }));
    };
    const client = await open({ timeoutMs: 150, resilience: FAST });
    const handle = await client.start('go', { delivery: 'poll' });
    const task = await handle.done();
    expect(task.status.state).toBe('completed');
    expect(asked).toBeGreaterThanOrEqual(2);
  }, 10_000);
});

describe('what a gRPC agent quotes of our credentials', () => {
  const TOKEN = 'PLANTED-grpc-bearer-5a6b7c';
  const echoed = (metadata: grpc.Metadata): string => `you sent authorization=${String(metadata.get('authorization')[0])} and token ${TOKEN}`;
  /** A serialized `google.rpc.Status` whose ErrorInfo (and message) quote `text`. */
  function echoingDetails(code: number, reason: string, text: string): Buffer {
    const entry = new BinaryWriter().uint32(10).string('sent').uint32(18).string(text).finish();
    const info = new BinaryWriter().uint32(10).string(reason).uint32(18).string(text).uint32(26).bytes(entry).finish();
    const any = new BinaryWriter().uint32(10).string('type.googleapis.com/google.rpc.ErrorInfo').uint32(18).bytes(info).finish();
    return Buffer.from(new BinaryWriter().uint32(8).int32(code).uint32(18).string(text).uint32(26).bytes(any).finish());
  }
  function echoing(code: number, metadata: grpc.Metadata, reason?: string): Partial<grpc.StatusObject> {
    const text = echoed(metadata);
    const trailers = new grpc.Metadata();
    trailers.set('x-echo', text);
    if (reason) trailers.set('grpc-status-details-bin', echoingDetails(code, reason, text));
    return { code, details: text, metadata: trailers };
  }

  it('appears nowhere in the error — message, stack, fields, data, cause chain — unary and in a stream, A2A errors or not', async () => {
    const { Exposure } = await import('./helpers/planted.js');
    const statuses: Array<[number, string | undefined]> = [
      [grpc.status.NOT_FOUND, 'TASK_NOT_FOUND'],
      [grpc.status.UNAUTHENTICATED, undefined],
      [grpc.status.PERMISSION_DENIED, undefined],
      [grpc.status.INTERNAL, undefined],
      [grpc.status.UNAVAILABLE, undefined],
      [grpc.status.FAILED_PRECONDITION, undefined],
      [grpc.status.DEADLINE_EXCEEDED, undefined],
      [grpc.status.RESOURCE_EXHAUSTED, 'SOMETHING_ELSE'],
    ];
    const client = await open({ auth: { bearer: TOKEN } });
    const errors: unknown[] = [];
    for (const [code, reason] of statuses) {
      onUnary['GetTask'] = (_request, metadata, reply) => reply(echoing(code, metadata, reason));
      onStream['SubscribeToTask'] = (_request, call) => {
        call.write(encode('StreamResponse', { task: TASK }));
        call.emit('error', echoing(code, call.metadata, reason));
      };
      errors.push(await failureOf(client.getTask('t-1', { maxRetries: 0 })));
      const { error } = await drain(client.subscribe('t-1'));
      expect(error).toBeInstanceOf(TetherError);
      errors.push(error);
    }
    // The agent was sent the token, and echoed it.
    expect(seen.filter((call) => call.metadata['authorization'] === `Bearer ${TOKEN}`).length).toBe(2 * statuses.length);
    const exposure = new Exposure([TOKEN, 'PLANTED']);
    exposure.scan('errors', errors);
    expect(exposure.found).toEqual([]);
    // What was redacted is still recognizable, and the A2A error is still typed.
    expect(errors[0]).toBeInstanceOf(TaskNotFoundError);
    expect((errors[0] as TetherError).message).toContain('[REDACTED]');
  });

  it('a status of 40 KB makes a bounded error; a status past HTTP/2’s header limit still ends the call, with a bounded error', async () => {
    const big = 'x'.repeat(40_000);
    let entries = new BinaryWriter().uint32(10).string('TASK_NOT_FOUND').uint32(18).string(big);
    for (let i = 0; i < 2_000; i++) entries = entries.uint32(26).bytes(new BinaryWriter().uint32(10).string(`k${i}`).uint32(18).string('v').finish());
    const any = new BinaryWriter().uint32(10).string('type.googleapis.com/google.rpc.ErrorInfo').uint32(18).bytes(entries.finish()).finish();
    const detailsBin = Buffer.from(new BinaryWriter().uint32(8).int32(5).uint32(26).bytes(any).finish());
    let details = big;
    onUnary['GetTask'] = (_request, _metadata, reply) => {
      const trailers = new grpc.Metadata();
      trailers.set('grpc-status-details-bin', detailsBin);
      reply({ code: grpc.status.NOT_FOUND, details, metadata: trailers });
    };
    // A connection of its own: one whose trailers were too big takes no more calls (they reach nothing until
    // the keepalive gives up on it), and grpc-js shares connections between clients.
    const binding = grpcBinding({ channelOptions: { 'grpc.use_local_subchannel_pool': 1 } });
    const client = await connect(`http://127.0.0.1:${port}`, { card: card(), cardCache: false, bindings: [binding], timeoutMs: 300 });
    const error = await failureOf(client.getTask('t-1', { maxRetries: 0 }));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    const data = (error as A2AError).data as Array<{ domain: string; metadata: Record<string, string> }>;
    expect(Object.keys(data[0]?.metadata ?? {}).length).toBe(32);
    expect(data[0]?.domain.length).toBeLessThan(1_100);
    expect((error as A2AError).agentMessage.length).toBeLessThan(1_100);
    expect(error.message.length).toBeLessThan(1_300);

    // Past the header limit the call still ends, with a bounded error: on Node 20 the trailers never arrive
    // and the client's time limit ends it (TIMEOUT); Node 22 and 24 refuse the header block and grpc-js ends
    // the call at once (NETWORK).
    details = 'x'.repeat(1_000_000);
    const past = await failureOf(client.getTask('t-1', { maxRetries: 0 }));
    expect(['TIMEOUT', 'NETWORK']).toContain(past.code);
    expect(past.message.length).toBeLessThan(1_300);
  });
});

describe('an answer about another task over gRPC (issue 33, point 7)', () => {
  it('GetTask, CancelTask and the push-config calls answered about t-OTHER: PROTOCOL_VIOLATION', async () => {
    const foreign = { ...TASK, id: 't-OTHER' };
    const config = { taskId: 't-OTHER', id: 'cfg-1', url: 'https://hooks.example/a2a' };
    onUnary['GetTask'] = (_request, _metadata, reply) => reply(null, encode('Task', foreign));
    onUnary['CancelTask'] = (_request, _metadata, reply) => reply(null, encode('Task', foreign));
    onUnary['GetTaskPushNotificationConfig'] = (_request, _metadata, reply) => reply(null, encode('TaskPushNotificationConfig', config));
    onUnary['ListTaskPushNotificationConfigs'] = (_request, _metadata, reply) => reply(null, encode('ListTaskPushNotificationConfigsResponse', { configs: [config] }));
    onUnary['CreateTaskPushNotificationConfig'] = (_request, _metadata, reply) => reply(null, encode('TaskPushNotificationConfig', config));
    const client = await open();
    const errors = [
      await failureOf(client.getTask('t-3', { maxRetries: 0 })),
      await failureOf(client.cancelTask('t-3')),
      await failureOf(client.getPushConfig('t-3', 'cfg-1', { maxRetries: 0 })),
      await failureOf(client.listPushConfigs('t-3', { maxRetries: 0 })),
      await failureOf(client.createPushConfig({ taskId: 't-3', url: 'https://hooks.example/a2a' })),
    ];
    for (const error of errors) expect(error).toMatchObject({ code: 'PROTOCOL_VIOLATION', taskId: 't-3' });
  });
});

// Issue 33, point 10: data nested deep over gRPC. protobuf-es stops at 100 message levels by default (about
// 48 JSON levels: each is a Value and a ListValue or Struct), refusing what HTTP decodes; deeper than
// DEFAULTS.maxDepth is refused on every binding with the same typed error naming the limit.
describe('data nested deep over gRPC (issue 33, point 10)', () => {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
    out.push(n);
    return out;
  };
  /** A length-delimited field. */
  const field = (no: number, bytes: Uint8Array): Buffer => Buffer.concat([Buffer.from([(no << 3) | 2, ...varint(bytes.length)]), bytes]);
  /** A `google.protobuf.Value` of lists nested `depth` deep around `true`, written without recursion. */
  function deepValue(depth: number): Buffer {
    const inner = Buffer.from([0x20, 0x01]); // Value { bool_value: true }
    const lengths: Array<[number, number]> = []; // [ListValue length, Value length] per level, inside out
    let value = inner.length;
    for (let i = 0; i < depth; i++) {
      const list = 1 + varint(value).length + value;
      value = 1 + varint(list).length + list;
      lengths.push([list, value]);
    }
    const heads: number[] = [];
    for (let i = depth - 1; i >= 0; i--) {
      const [list] = lengths[i] as [number, number];
      const below = i === 0 ? inner.length : (lengths[i - 1] as [number, number])[1];
      heads.push(0x32, ...varint(list), 0x0a, ...varint(below)); // Value.list_value (6) → ListValue.values (1)
    }
    return Buffer.concat([Buffer.from(heads), inner]);
  }
  /** An artifact whose one part's data is `deepValue(depth)`. */
  const artifact = (depth: number): Buffer => Buffer.concat([encode('Artifact', { artifactId: 'a-1' }), field(4, field(4, deepValue(depth)))]);
  const task = (depth: number): Buffer => Buffer.concat([encode('Task', TASK), field(4, artifact(depth))]);
  const depthOf = (data: unknown): number => {
    let depth = 0;
    for (let value = data; Array.isArray(value); value = value[0]) depth++;
    return depth;
  };

  it('a GetTask answer and a stream event nested 10,000 deep: INVALID_RESPONSE / MALFORMED_EVENT naming the limit, never a RangeError', async () => {
    onUnary['GetTask'] = (_request, _metadata, reply) => reply(null, task(10_000));
    onStream['SubscribeToTask'] = (_request, call) => {
      call.write(encode('StreamResponse', { task: TASK }));
      call.write(field(4, Buffer.concat([encode('TaskArtifactUpdateEvent', { taskId: 't-1', contextId: 'c-1' }), field(3, artifact(10_000))])));
      call.end();
    };
    const client = await open();
    const unary = await failureOf(client.getTask('t-1', { maxRetries: 0 }));
    expect(unary).toMatchObject({ code: 'INVALID_RESPONSE' });
    expect(unary.message).toContain(`deeper than ${DEFAULTS.maxDepth} levels`);
    const { events, error } = await drain(client.subscribe('t-1'));
    expect(events.map((e) => e.kind)).toEqual(['task']);
    expect(error).toMatchObject({ code: 'MALFORMED_EVENT' });
    expect((error as Error).message).toContain(`deeper than ${DEFAULTS.maxDepth} levels`);
    for (const e of [unary, error]) expect(String((e as { cause?: unknown }).cause)).not.toMatch(/RangeError|call stack/);
  });

  it('what HTTP decodes, gRPC decodes: data 95 levels deep inside a task (the limit), not one more', async () => {
    // task (1) → artifacts (2) → artifact (3) → parts (4) → part (5) → 95 lists.
    const fits = DEFAULTS.maxDepth - 5;
    let depth = fits;
    onUnary['GetTask'] = (_request, _metadata, reply) => reply(null, task(depth));
    const client = await open();
    const got = await client.getTask('t-1', { maxRetries: 0 });
    const part = got.artifacts[0]?.parts[0];
    expect(part?.kind === 'data' ? depthOf(part.data) : 0).toBe(fits);
    depth = fits + 1;
    const refused = await failureOf(client.getTask('t-1', { maxRetries: 0 }));
    expect(refused.message).toContain(`deeper than ${DEFAULTS.maxDepth} levels`);
  });
});
