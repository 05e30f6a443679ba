// The gRPC binding of A2A v1.0 (`lf.a2a.v1.A2AService`) for Node, built on the public `CustomBinding`
// interface of @a2a-tether/core with @grpc/grpc-js and @bufbuild/protobuf. Each call encodes the same
// ProtoJSON objects the HTTP bindings send (`encodeSendParams(…, 'v1')` …) to protobuf, and decodes the
// agent's protobuf back to ProtoJSON for the v1.0 decoders: one model, three bindings. A stream the
// connection drops ends in `NETWORK`, and the task engine resumes the task with `SubscribeToTask`.
import { DEFAULTS, TetherError } from '@a2a-tether/core';
import type {
  BindingContext,
  CallOptions,
  ErrorContext,
  CustomBinding,
  EventFeed,
  GetTaskCallOptions,
  ListTasksQuery,
  Metadata as A2AMetadata,
  PushNotificationConfig,
  SendResult,
  StreamEvent,
  SubscribeOptions,
  Task,
  TaskPage,
  Transport,
} from '@a2a-tether/core';
import { DecodeError, decodePushConfig, decodePushConfigList, decodeSendResult, decodeStreamEvent, decodeTask, decodeTaskPage, encodePushConfig, encodeSendParams, eventFeed } from '@a2a-tether/core/protocol';
import type { SendParams } from '@a2a-tether/core/protocol';
import { fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import type { DescMessage, JsonValue } from '@bufbuild/protobuf';
import { Client, credentials as channelCredentials, Metadata } from '@grpc/grpc-js';
import type { ChannelCredentials, ChannelOptions, ClientReadableStream } from '@grpc/grpc-js';
import { A2A_PACKAGE, a2aMessage, a2aRegistry } from './a2a-schema.js';
import { CallDeadline } from './call-deadline.js';
import { grpcError } from './grpc-status.js';
import type { GrpcFailure } from './grpc-status.js';

/** Options of {@link grpcBinding}. */
export interface GrpcBindingOptions {
  /**
   * The channel's credentials. Default: TLS (the system's roots) for `https://`, `grpcs://` and a bare
   * `host:port`, except plaintext for `http://`, `grpc://` and a bare loopback address (`127.0.0.1`,
   * `localhost`, `[::1]`).
   */
  credentials?: ChannelCredentials | undefined;
  /**
   * grpc-js channel options, on top of Tether's: keepalive pings every 30 s (`grpc.keepalive_time_ms`)
   * that a stream's peer must answer within 10 s, so a cut-off agent ends the stream instead of hanging it.
   */
  channelOptions?: ChannelOptions | undefined;
}

/** The A2A version every call announces (`a2a-version` metadata): without it the official server assumes v0.3. */
const A2A_VERSION = '1.0';
const DEFAULT_CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 0,
};
/**
 * How many protobuf messages deep an answer is read: each JSON level of a data part or metadata is two
 * (`Value` and `ListValue` or `Struct`), so what HTTP decodes (`DEFAULTS.maxDepth` JSON levels, checked by the
 * decoders) is read here too, and anything much deeper stops at this limit before toJson recurses into it.
 */
const RECURSION_LIMIT = 2 * DEFAULTS.maxDepth + 10;
/** Headers that are HTTP/2's own or grpc-js's: never copied into call metadata. */
const RESERVED = new Set(['content-type', 'content-length', 'accept', 'accept-encoding', 'connection', 'host', 'te', 'user-agent', 'transfer-encoding']);

/**
 * The gRPC binding: `connect(url, { bindings: [grpcBinding()] })` uses the card's `GRPC` interfaces (A2A
 * v1.0), negotiated like JSON-RPC and HTTP+JSON (the card's order, or `preferredBindings: ['GRPC']`). The
 * interface's `url` may be `host:port` (what agents publish in practice) or a URL (`https://host:port`,
 * `grpc://host:port` …). Every operation is supported, streams included; the task engine resumes a stream
 * the connection drops. Node only: `@grpc/grpc-js` and `@bufbuild/protobuf` are optional peer dependencies
 * of `@a2a-tether/node`, loaded only by this entry.
 */
export function grpcBinding(options: GrpcBindingOptions = {}): CustomBinding {
  return {
    name: 'GRPC',
    protocolVersions: ['1.0'],
    create: (context) => new GrpcTransport(context, options),
  };
}

/** `host:port` and whether the interface asks for TLS, from what a card may say. */
export function grpcTarget(url: string): { target: string; tls: boolean } {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    const host = url.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    return { target: url, tls: !['127.0.0.1', 'localhost', '::1'].includes(host.toLowerCase()) };
  }
  if (!['http', 'https', 'grpc', 'grpcs'].includes(scheme)) throw new TetherError('INVALID_ARGUMENT', `a gRPC interface URL must be host:port, http(s):// or grpc(s)://, not ${scheme}://`, { url, maybeDelivered: false });
  const parsed = new URL(url.replace(/^grpcs?:/i, scheme.endsWith('s') ? 'https:' : 'http:'));
  const tls = scheme === 'https' || scheme === 'grpcs';
  return { target: `${parsed.hostname}:${parsed.port || (tls ? '443' : '80')}`, tls };
}

type Json = Record<string, unknown>;

type Codec = { serialize: (value: Json) => Buffer; deserialize: (bytes: Buffer) => unknown };
const codecs = new Map<string, Codec>();

/** One A2A message type's protobuf codec, over ProtoJSON objects (made once per type). */
function codec(name: string): Codec {
  const made = codecs.get(name);
  if (made) return made;
  const created = makeCodec(name);
  codecs.set(name, created);
  return created;
}

function makeCodec(name: string): Codec {
  const registry = a2aRegistry();
  const desc: DescMessage | undefined = name.includes('.') ? registry.getMessage(name) : a2aMessage(name);
  if (!desc) throw new Error(`no message ${name}`);
  return {
    serialize: (value) => Buffer.from(toBinary(desc, fromJson(desc, value as JsonValue, { registry }))),
    deserialize: (bytes) => {
      let message;
      try {
        message = fromBinary(desc, bytes, { recursionLimit: RECURSION_LIMIT });
      } catch (error) {
        if (error instanceof Error && /recursion depth/.test(error.message)) throw new DecodeError(`nested deeper than ${DEFAULTS.maxDepth} levels`);
        throw error;
      }
      return toJson(desc, message, { registry });
    },
  };
}

class GrpcTransport implements Transport {
  readonly binding = 'GRPC';
  readonly protocolVersion = '1.0' as const;
  readonly url: string;
  private readonly client: Client;
  private readonly tenant: string | undefined;
  /** The HTTP/2 origin the channel connects to: what `auth` credentials are matched against. */
  private readonly origin: string;

  constructor(
    private readonly context: BindingContext,
    options: GrpcBindingOptions,
  ) {
    this.url = context.iface.url;
    this.tenant = context.iface.tenant || undefined;
    const { target, tls } = grpcTarget(this.url);
    this.origin = `${tls ? 'https' : 'http'}://${target}`;
    const credentials = options.credentials ?? (tls ? channelCredentials.createSsl() : channelCredentials.createInsecure());
    this.client = new Client(target, credentials, {
      ...DEFAULT_CHANNEL_OPTIONS,
      'grpc.max_receive_message_length': context.maxEventSize,
      ...options.channelOptions,
    });
  }

  /** The call's metadata: the A2A version, activated extensions, the client's headers (credentials among them). */
  private async metadata(options: CallOptions | undefined, signal?: AbortSignal): Promise<Metadata> {
    const metadata = new Metadata();
    const headers = { ...(await this.context.headers(this.origin, signal ?? options?.signal)), ...options?.headers };
    for (const [name, value] of Object.entries(headers)) {
      const key = name.toLowerCase();
      if (!RESERVED.has(key) && !key.startsWith(':') && !key.startsWith('grpc-') && /^[0-9a-z_.-]+$/.test(key)) metadata.set(key, value);
    }
    metadata.set('a2a-version', A2A_VERSION);
    const extensions = [...this.context.extensions, ...(options?.extensions ?? [])];
    if (extensions.length > 0) metadata.set('a2a-extensions', [...new Set(extensions)].join(','));
    return metadata;
  }

  private withTenant(request: Json): Json {
    return this.tenant === undefined ? request : { ...request, tenant: this.tenant };
  }

  private path(method: string): string {
    return `/${A2A_PACKAGE}.A2AService/${method}`;
  }

  /** What ended a call: its time limit (`TIMEOUT`), the caller (`ABORTED`), or `error` as a typed error. */
  private ended(deadline: CallDeadline, where: ErrorContext, error: unknown, inStream = false): TetherError {
    if (deadline.timedOut) {
      const what = where.operation === 'SendStreamingMessage' || where.operation === 'SubscribeToTask' ? `the ${where.operation} stream did not open` : 'no answer';
      return new TetherError('TIMEOUT', `${what} within ${deadline.timeoutMs} ms`, where);
    }
    if (error instanceof TetherError) return error;
    return grpcError(error as GrpcFailure, where, { aborted: deadline.signal.aborted, inStream, redact: this.context.redact });
  }

  /** A unary call: the agent's answer (ProtoJSON), or a typed error. */
  private async unary<T>(method: string, requestType: string, responseType: string, request: Json, options: CallOptions | undefined, decode: (answer: unknown) => T): Promise<T> {
    const where = { operation: method, url: this.url };
    if (options?.signal?.aborted) throw new TetherError('ABORTED', 'aborted before the call', { ...where, maybeDelivered: false });
    const input = codec(requestType);
    const output = codec(responseType);
    let body: Buffer;
    try {
      body = input.serialize(this.withTenant(request));
    } catch (error) {
      throw new TetherError('INVALID_ARGUMENT', `cannot encode ${requestType}: ${error instanceof Error ? error.message : String(error)}`, { ...where, maybeDelivered: false, cause: error });
    }
    // The client's time limit when the call names none, as over HTTP: from here until the answer.
    const deadline = new CallDeadline(options?.signal, options?.timeoutMs ?? this.context.timeoutMs);
    let answer: Buffer;
    try {
      const metadata = await this.metadata(options, deadline.signal);
      answer = await new Promise<Buffer>((resolve, reject) => {
        if (deadline.signal.aborted) throw new Error('aborted');
        const call = this.client.makeUnaryRequest(this.path(method), (b: Buffer) => b, (b: Buffer) => b, body, metadata, {}, (error, value) => {
          deadline.signal.removeEventListener('abort', cancel);
          if (error) reject(error);
          else resolve(value as Buffer);
        });
        const cancel = (): void => call.cancel();
        deadline.signal.addEventListener('abort', cancel, { once: true });
      });
    } catch (error) {
      throw this.ended(deadline, where, error);
    } finally {
      deadline.dispose();
    }
    try {
      return decode(output.deserialize(answer));
    } catch (error) {
      const { text, cause } = quoted(error, this.context.redact);
      throw new TetherError('INVALID_RESPONSE', `the agent's ${responseType} is not valid: ${text}`, { ...where, cause });
    }
  }

  /** A server stream: its events as an `EventFeed`; a dropped connection ends it with `NETWORK`. */
  private async stream(method: string, request: Json, options: CallOptions | undefined, signal: AbortSignal, taskId: string | undefined): Promise<EventFeed> {
    const where = { operation: method, url: this.url, taskId };
    const body = codec('SendMessageRequest');
    const input = method === 'SubscribeToTask' ? codec('SubscribeToTaskRequest') : body;
    const output = codec('StreamResponse');
    let encoded: Buffer;
    try {
      encoded = input.serialize(this.withTenant(request));
    } catch (error) {
      throw new TetherError('INVALID_ARGUMENT', `cannot encode the ${method} request: ${error instanceof Error ? error.message : String(error)}`, { ...where, maybeDelivered: false, cause: error });
    }
    if (signal.aborted) throw new TetherError('ABORTED', 'aborted before the call', { ...where, maybeDelivered: false });
    // As over HTTP, the time limit runs until the stream opens (its headers, first message or end); then
    // only the caller's signal ends it, and silence is the task engine's to judge.
    const deadline = new CallDeadline(signal, options?.timeoutMs ?? this.context.timeoutMs);
    let call: ClientReadableStream<Buffer> | undefined;
    const cancel = (): void => call?.cancel();
    deadline.signal.addEventListener('abort', cancel, { once: true });
    try {
      const metadata = await this.metadata(options, deadline.signal);
      if (deadline.signal.aborted) throw new Error('aborted');
      const opening = this.client.makeServerStreamRequest(this.path(method), (b: Buffer) => b, (b: Buffer) => b, encoded, metadata, {});
      call = opening;
      // An error between the opening and the first read (a cancel, say) must not be an unhandled 'error' event.
      opening.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        const opened = (): void => {
          opening.off('error', failed);
          resolve();
        };
        const failed = (error: GrpcFailure): void => {
          opening.off('metadata', opened);
          reject(error);
        };
        opening.once('metadata', opened);
        opening.once('error', failed);
      });
    } catch (error) {
      deadline.signal.removeEventListener('abort', cancel);
      deadline.dispose();
      call?.cancel();
      throw this.ended(deadline, where, error);
    }
    deadline.stopTimer();
    options?.onOpen?.();
    const opened = call;
    const done = (): void => {
      deadline.signal.removeEventListener('abort', cancel);
      deadline.dispose();
      opened.cancel();
    };
    return eventFeed(streamEvents(opened, output.deserialize, where, this.context.redact, (error) => this.ended(deadline, where, error, true), done), { taskId, context: where, onClose: () => opened.cancel() });
  }

  sendMessage(params: SendParams, options?: CallOptions): Promise<SendResult> {
    return this.unary('SendMessage', 'SendMessageRequest', 'SendMessageResponse', encodeSendParams(params, 'v1') as Json, options, (r) => decodeSendResult(r, 'v1'));
  }

  openStream(params: SendParams, options: CallOptions | undefined, signal: AbortSignal): Promise<EventFeed> {
    return this.stream('SendStreamingMessage', encodeSendParams(params, 'v1') as Json, options, signal, params.message.taskId);
  }

  getTask(taskId: string, historyLength: number | undefined, options?: GetTaskCallOptions): Promise<Task> {
    const request: Json = { id: taskId };
    if (historyLength !== undefined) request['historyLength'] = historyLength;
    // v1.1 draft: a long poll (GetTaskRequest.current_generation).
    if (options?.currentGeneration !== undefined) request['currentGeneration'] = options.currentGeneration;
    return this.unary('GetTask', 'GetTaskRequest', 'Task', request, options, (r) => decodeTask(r, 'v1'));
  }

  listTasks(query: ListTasksQuery, options?: CallOptions): Promise<TaskPage> {
    const request: Json = {};
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      request[key] = key === 'status' ? `TASK_STATE_${String(value).toUpperCase().replace(/-/g, '_')}` : value;
    }
    return this.unary('ListTasks', 'ListTasksRequest', 'ListTasksResponse', request, options, (r) => decodeTaskPage(r));
  }

  cancelTask(taskId: string, metadata: A2AMetadata | undefined, options?: CallOptions): Promise<Task> {
    return this.unary('CancelTask', 'CancelTaskRequest', 'Task', metadata === undefined ? { id: taskId } : { id: taskId, metadata }, options, (r) => decodeTask(r, 'v1'));
  }

  openSubscription(taskId: string, options: SubscribeOptions | undefined, signal: AbortSignal): Promise<EventFeed> {
    return this.stream('SubscribeToTask', { id: taskId }, options, signal, taskId);
  }

  createPushConfig(config: PushNotificationConfig, options?: CallOptions): Promise<PushNotificationConfig> {
    return this.unary('CreateTaskPushNotificationConfig', 'TaskPushNotificationConfig', 'TaskPushNotificationConfig', encodePushConfig(config, 'v1') as Json, options, (r) => decodePushConfig(r, config.taskId));
  }

  getPushConfig(taskId: string, configId: string, options?: CallOptions): Promise<PushNotificationConfig> {
    return this.unary('GetTaskPushNotificationConfig', 'GetTaskPushNotificationConfigRequest', 'TaskPushNotificationConfig', { taskId, id: configId }, options, (r) => decodePushConfig(r, taskId));
  }

  listPushConfigs(taskId: string, options?: CallOptions): Promise<PushNotificationConfig[]> {
    return this.unary('ListTaskPushNotificationConfigs', 'ListTaskPushNotificationConfigsRequest', 'ListTaskPushNotificationConfigsResponse', { taskId }, options, (r) => decodePushConfigList(r, taskId));
  }

  async deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void> {
    await this.unary('DeleteTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfigRequest', 'google.protobuf.Empty', { taskId, id: configId }, options, () => undefined);
  }

  getExtendedCard(options?: CallOptions): Promise<unknown> {
    return this.unary('GetExtendedAgentCard', 'GetExtendedAgentCardRequest', 'AgentCard', {}, options, (r) => r);
  }
}

/**
 * What an error may quote of a decoder's failure (a value of the agent's answer): our credentials redacted, and
 * the failure itself as the cause only when nothing had to be.
 */
function quoted(error: unknown, redact: (text: string) => string): { text: string; cause: unknown } {
  const raw = error instanceof Error ? error.message : String(error);
  const text = redact(raw);
  return { text, cause: text === raw ? error : undefined };
}

/** A stream call's events, decoded; the agent's error or a broken connection is thrown typed (`failure`). */
async function* streamEvents(call: ClientReadableStream<Buffer>, deserialize: (bytes: Buffer) => unknown, where: { operation: string; url: string }, redact: (text: string) => string, failure: (error: unknown) => TetherError, done: () => void): AsyncGenerator<StreamEvent> {
  try {
    for await (const bytes of call as AsyncIterable<Buffer>) {
      let event: StreamEvent;
      try {
        event = decodeStreamEvent(deserialize(bytes), 'v1');
      } catch (error) {
        const { text, cause } = quoted(error, redact);
        throw new TetherError('MALFORMED_EVENT', `a ${where.operation} event is not a valid StreamResponse: ${text}`, { ...where, cause });
      }
      yield event;
    }
  } catch (error) {
    throw failure(error);
  } finally {
    done();
  }
}
