import type { Binding, ProtocolVersion } from '../card/card-types.js';
import { createA2AError } from '../errors/a2a-errors.js';
import { parseAgentError } from '../errors/error-body.js';
import { quotableAgentError } from '../errors/quote-answer.js';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import type { Metadata, PushNotificationConfig, SendResult, StreamEvent, Task, TaskPage } from '../model/types.js';
import type { SseEvent } from '../sse/sse-reader.js';
import {
  decodePushConfig,
  decodePushConfigList,
  decodeSendResult,
  decodeTask,
  decodeTaskPage,
} from '../protocol/decode.js';
import type { Dialect } from '../protocol/dialect.js';
import type { Encoder, SendParams } from '../protocol/encoder.js';
import { checkId } from './check-id.js';
import { decodeOrThrow } from './decode-or-throw.js';
import { SseEventFeed, type EventFeed } from './event-feed.js';
import { decodeFrameEvent, parseFrame, quoteValue, streamError, type FrameDecoder } from './frame.js';
import { isObject } from '../util/is-object.js';
import type { CallOptions, GetTaskCallOptions, ListTasksQuery, SubscribeOptions, Transport } from './transport.js';
import { dialectOf, protocolHeaders, type TransportContext } from './transport-context.js';

type Operation =
  | 'send'
  | 'stream'
  | 'get'
  | 'list'
  | 'cancel'
  | 'subscribe'
  | 'pushCreate'
  | 'pushGet'
  | 'pushList'
  | 'pushDelete'
  | 'extendedCard';

/** The operation's name in errors and observability: the v1.0 name, whichever version is spoken. */
const OPERATIONS: Record<Operation, string> = {
  send: 'SendMessage',
  stream: 'SendStreamingMessage',
  get: 'GetTask',
  list: 'ListTasks',
  cancel: 'CancelTask',
  subscribe: 'SubscribeToTask',
  pushCreate: 'CreateTaskPushNotificationConfig',
  pushGet: 'GetTaskPushNotificationConfig',
  pushList: 'ListTaskPushNotificationConfigs',
  pushDelete: 'DeleteTaskPushNotificationConfig',
  extendedCard: 'GetExtendedAgentCard',
};

/** The JSON-RPC method of an operation, per version (v0.3 has no ListTasks). */
const METHODS: Record<ProtocolVersion, Partial<Record<Operation, string>>> = {
  '1.0': OPERATIONS,
  '0.3': {
    send: 'message/send',
    stream: 'message/stream',
    get: 'tasks/get',
    cancel: 'tasks/cancel',
    subscribe: 'tasks/resubscribe',
    pushCreate: 'tasks/pushNotificationConfig/set',
    pushGet: 'tasks/pushNotificationConfig/get',
    pushList: 'tasks/pushNotificationConfig/list',
    pushDelete: 'tasks/pushNotificationConfig/delete',
    extendedCard: 'agent/getAuthenticatedExtendedCard',
  },
};

/**
 * Why `envelope` is not a JSON-RPC 2.0 response, if it is not: it must say `"jsonrpc": "2.0"` (the
 * official SDK servers, v1.0 and v0.3, and VoltAgent's always do).
 */
function versionProblem(envelope: Record<string, unknown>, secrets: readonly string[]): string | undefined {
  const version = envelope['jsonrpc'];
  if (version === '2.0') return undefined;
  return `not a JSON-RPC 2.0 response: "jsonrpc" is ${version === undefined ? 'missing' : quoteValue(version, secrets)}, not "2.0"`;
}

/** A JSON-RPC response must answer the request it came for: same id (`null` only on an error). */
function checkResponseId(
  envelope: Record<string, unknown>,
  id: number,
  isError: boolean,
  context: () => ErrorContext,
  code: 'INVALID_RESPONSE' | 'PROTOCOL_VIOLATION',
  secrets: readonly string[],
): void {
  const got = envelope['id'];
  if (got === id || got === undefined || (got === null && isError)) return;
  throw new TetherError(code, `the JSON-RPC response id ${quoteValue(got, secrets)} does not match the request id ${id}`, context());
}

/** A JSON-RPC stream's frames: each a JSON-RPC 2.0 response to request `id`, its result one event. */
class JsonRpcFrameDecoder implements FrameDecoder {
  constructor(
    private readonly id: number,
    private readonly dialect: Dialect,
    private readonly secrets: readonly string[],
  ) {}

  decode(frame: SseEvent, index: number, context: () => ErrorContext): StreamEvent {
    const { secrets } = this;
    const json = parseFrame(frame, index, context, secrets);
    if (!isObject(json)) throw new TetherError('MALFORMED_EVENT', `event ${index} is not a JSON-RPC response object`, context());
    const notJsonRpc = versionProblem(json, secrets);
    if (notJsonRpc !== undefined) throw new TetherError('MALFORMED_EVENT', `event ${index} is ${notJsonRpc}`, context());
    const isError = frame.event === 'error' || (json['error'] !== undefined && json['error'] !== null);
    checkResponseId(json, this.id, isError, context, 'PROTOCOL_VIOLATION', secrets);
    if (isError) throw streamError(json, frame, context, secrets);
    if (!('result' in json)) throw new TetherError('MALFORMED_EVENT', `event ${index} has neither result nor error`, context());
    return decodeFrameEvent(json['result'], this.dialect, index, context, secrets);
  }
}

/** The result of a unary JSON-RPC answer, or the typed error it carries (the agent's, or what is wrong with it). */
function resultOf(body: unknown, id: number, context: ErrorContext, secrets: string[]): unknown {
  if (!isObject(body)) {
    throw new TetherError('INVALID_RESPONSE', 'the answer is not a JSON-RPC response object', context);
  }
  const notJsonRpc = versionProblem(body, secrets);
  if (notJsonRpc !== undefined) throw new TetherError('INVALID_RESPONSE', `the answer is ${notJsonRpc}`, context);
  const isError = body['error'] !== undefined && body['error'] !== null;
  checkResponseId(body, id, isError, () => context, 'INVALID_RESPONSE', secrets);
  if (isError) {
    const parsed = parseAgentError(body);
    if (parsed) {
      // An error at HTTP 200 quotes what the agent chose: the credentials it echoes are redacted, as for any other status.
      const agentError = quotableAgentError(parsed, secrets);
      throw createA2AError(agentError.a2aCode, agentError.message, { ...context, data: agentError.data, reason: agentError.reason });
    }
    throw new TetherError('INVALID_RESPONSE', 'malformed JSON-RPC error object', context);
  }
  if (!('result' in body)) {
    throw new TetherError('INVALID_RESPONSE', 'JSON-RPC response has neither result nor error', context);
  }
  return body['result'];
}

let nextId = 1;

/** JSON-RPC 2.0 over HTTP, v1.0 or v0.3: every call is a POST to the interface URL. */
export class JsonRpcTransport implements Transport {
  readonly binding: Binding = 'JSONRPC';
  readonly protocolVersion: ProtocolVersion;
  readonly url: string;
  private readonly dialect: Dialect;

  constructor(
    private readonly context: TransportContext,
    private readonly encoder: Encoder,
  ) {
    this.protocolVersion = context.iface.protocolVersion;
    this.url = context.iface.url;
    this.dialect = dialectOf(context);
  }

  private method(operation: Operation): string {
    const method = METHODS[this.protocolVersion][operation];
    if (!method) {
      throw new TetherError(
        'UNSUPPORTED_OPERATION',
        `${OPERATIONS[operation]} does not exist in A2A v${this.protocolVersion}${operation === 'list' ? ' (ListTasks is new in v1.0)' : ''}`,
        { operation: OPERATIONS[operation], url: this.url },
      );
    }
    return method;
  }

  /** v1.0 carries the tenant in the params of every call (held to the same rule as over HTTP+JSON). */
  private params(operation: Operation, params: Record<string, unknown>): Record<string, unknown> {
    const tenant = this.context.iface.tenant;
    if (this.protocolVersion !== '1.0' || tenant === undefined) return params;
    checkId('tenant', tenant, OPERATIONS[operation]);
    return { ...params, tenant };
  }

  /** Checks the ids of a call that names a task (and a push config). */
  private ids(operation: Operation, taskId: string, configId?: string): void {
    checkId('task id', taskId, OPERATIONS[operation]);
    if (configId !== undefined) checkId('push config id', configId, OPERATIONS[operation]);
  }

  /** One unary call: the JSON-RPC envelope checked, its result decoded by `decode` (the plugins told how it ended). */
  private async call<T>(
    operation: Operation,
    params: Record<string, unknown>,
    options: CallOptions | undefined,
    taskId: string | undefined,
    decode: (result: unknown, context: ErrorContext, secrets: string[]) => T,
    messageId?: string,
  ): Promise<T> {
    const method = this.method(operation);
    const id = nextId++;
    const answer = await this.context.http.json({
      operation: OPERATIONS[operation],
      method: 'POST',
      url: this.url,
      body: { jsonrpc: '2.0', id, method, params: this.params(operation, params) },
      headers: protocolHeaders(this.context, options, 'application/json'),
      expect: 'json',
      signal: options?.signal,
      timeoutMs: options?.timeoutMs,
      taskId,
      messageId,
      trace: options?.traceContext,
    });
    const { body, context, secrets } = answer;
    return this.context.http.settle(answer, () => decode(resultOf(body, id, context, secrets), context, secrets));
  }

  private async feed(
    operation: Operation,
    params: Record<string, unknown>,
    options: SubscribeOptions | undefined,
    signal: AbortSignal,
    taskId: string | undefined,
    messageId?: string,
  ): Promise<EventFeed> {
    const method = this.method(operation);
    const headers = protocolHeaders(this.context, options, 'text/event-stream');
    if (options?.lastEventId !== undefined) headers['Last-Event-ID'] = options.lastEventId;
    const id = nextId++;
    const open = await this.context.http.open({
      operation: OPERATIONS[operation],
      method: 'POST',
      url: this.url,
      body: { jsonrpc: '2.0', id, method, params: this.params(operation, params) },
      headers,
      expect: 'sse',
      signal,
      timeoutMs: options?.timeoutMs,
      taskId,
      messageId,
      trace: options?.traceContext,
    });
    return new SseEventFeed(open, new JsonRpcFrameDecoder(id, this.dialect, open.secrets), this.context.maxEventSize, { taskId });
  }

  async sendMessage(params: SendParams, options?: CallOptions): Promise<SendResult> {
    return this.call(
      'send',
      this.encoder.sendParams(params),
      options,
      params.message.taskId,
      (result, context, secrets) => decodeOrThrow(() => decodeSendResult(result, this.dialect), context, secrets),
      params.message.messageId,
    );
  }

  openStream(params: SendParams, options: CallOptions | undefined, signal: AbortSignal): Promise<EventFeed> {
    return this.feed('stream', this.encoder.sendParams(params), options, signal, params.message.taskId, params.message.messageId);
  }

  async getTask(taskId: string, historyLength: number | undefined, options?: GetTaskCallOptions): Promise<Task> {
    this.ids('get', taskId);
    const params: Record<string, unknown> = { id: taskId };
    if (historyLength !== undefined) params['historyLength'] = historyLength;
    // v1.1 draft long poll: an int64, written as ProtoJSON writes it.
    if (options?.currentGeneration !== undefined) params['currentGeneration'] = String(options.currentGeneration);
    return this.call('get', params, options, taskId, (result, context, secrets) => decodeOrThrow(() => decodeTask(result, this.dialect), context, secrets));
  }

  async listTasks(query: ListTasksQuery, options?: CallOptions): Promise<TaskPage> {
    const params: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      params[key] = key === 'status' ? `TASK_STATE_${String(value).toUpperCase().replace(/-/g, '_')}` : value;
    }
    return this.call('list', params, options, undefined, (result, context, secrets) => decodeOrThrow(() => decodeTaskPage(result), context, secrets));
  }

  async cancelTask(taskId: string, metadata: Metadata | undefined, options?: CallOptions): Promise<Task> {
    this.ids('cancel', taskId);
    const params: Record<string, unknown> = { id: taskId };
    if (metadata !== undefined) params['metadata'] = metadata;
    return this.call('cancel', params, options, taskId, (result, context, secrets) => decodeOrThrow(() => decodeTask(result, this.dialect), context, secrets));
  }

  async openSubscription(taskId: string, options: SubscribeOptions | undefined, signal: AbortSignal): Promise<EventFeed> {
    this.ids('subscribe', taskId);
    return this.feed('subscribe', { id: taskId }, options, signal, taskId);
  }

  async createPushConfig(config: PushNotificationConfig, options?: CallOptions): Promise<PushNotificationConfig> {
    this.ids('pushCreate', config.taskId);
    return this.call('pushCreate', this.encoder.pushConfig(config), options, config.taskId, (result, context, secrets) =>
      decodeOrThrow(() => decodePushConfig(result, config.taskId), context, secrets),
    );
  }

  async getPushConfig(taskId: string, configId: string, options?: CallOptions): Promise<PushNotificationConfig> {
    this.ids('pushGet', taskId, configId);
    const params =
      this.protocolVersion === '1.0' ? { taskId, id: configId } : { id: taskId, pushNotificationConfigId: configId };
    return this.call('pushGet', params, options, taskId, (result, context, secrets) => decodeOrThrow(() => decodePushConfig(result, taskId), context, secrets));
  }

  async listPushConfigs(taskId: string, options?: CallOptions): Promise<PushNotificationConfig[]> {
    this.ids('pushList', taskId);
    const params = this.protocolVersion === '1.0' ? { taskId } : { id: taskId };
    return this.call('pushList', params, options, taskId, (result, context, secrets) =>
      decodeOrThrow(() => decodePushConfigList(result, taskId), context, secrets),
    );
  }

  async deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void> {
    this.ids('pushDelete', taskId, configId);
    const params =
      this.protocolVersion === '1.0' ? { taskId, id: configId } : { id: taskId, pushNotificationConfigId: configId };
    await this.call('pushDelete', params, options, taskId, () => undefined);
  }

  async getExtendedCard(options?: CallOptions): Promise<unknown> {
    return this.call('extendedCard', {}, options, undefined, (result) => result);
  }
}
