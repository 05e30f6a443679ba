import type { Binding, ProtocolVersion } from '../card/card-types.js';
import { createA2AError } from '../errors/a2a-errors.js';
import { parseAgentError } from '../errors/error-body.js';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import type { Metadata, PushNotificationConfig, SendResult, Task, TaskPage } from '../model/types.js';
import {
  decodePushConfig,
  decodePushConfigList,
  decodeSendResult,
  decodeTask,
  decodeTaskPage,
} from '../protocol/decode.js';
import type { Dialect } from '../protocol/dialect.js';
import { encodePushConfig, encodeSendParams, type SendParams } from '../protocol/encode.js';
import { decodeOrThrow } from './decode-or-throw.js';
import type { EventStream } from './event-stream.js';
import { openEventStream, streamError } from './stream-pipeline.js';
import type { CallOptions, ListTasksQuery, SubscribeOptions, Transport } from './transport.js';
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

const METHODS: Record<ProtocolVersion, Partial<Record<Operation, string>>> = {
  '1.0': {
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
  },
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

let nextId = 1;

/** JSON-RPC 2.0 over HTTP, v1.0 or v0.3: every call is a POST to the interface URL. */
export class JsonRpcTransport implements Transport {
  readonly binding: Binding = 'JSONRPC';
  readonly protocolVersion: ProtocolVersion;
  readonly url: string;
  private readonly dialect: Dialect;

  constructor(private readonly context: TransportContext) {
    this.protocolVersion = context.iface.protocolVersion;
    this.url = context.iface.url;
    this.dialect = dialectOf(context);
  }

  private method(operation: Operation): string {
    const method = METHODS[this.protocolVersion][operation];
    if (!method) {
      throw new TetherError(
        'UNSUPPORTED_OPERATION',
        `${operation} does not exist in A2A v${this.protocolVersion}${operation === 'list' ? ' (ListTasks is new in v1.0)' : ''}`,
        { url: this.url },
      );
    }
    return method;
  }

  /** v1.0 carries the tenant in the params of every call. */
  private params(params: Record<string, unknown>): Record<string, unknown> {
    const tenant = this.context.iface.tenant;
    return this.protocolVersion === '1.0' && tenant !== undefined ? { ...params, tenant } : params;
  }

  private async call(operation: Operation, params: Record<string, unknown>, options: CallOptions | undefined, taskId?: string): Promise<{ result: unknown; context: ErrorContext }> {
    const method = this.method(operation);
    const id = nextId++;
    const { body, context } = await this.context.http.json({
      operation: method,
      method: 'POST',
      url: this.url,
      body: { jsonrpc: '2.0', id, method, params: this.params(params) },
      headers: protocolHeaders(this.context, options, 'application/json'),
      expect: 'json',
      signal: options?.signal,
      timeoutMs: options?.timeoutMs,
      taskId,
    });
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new TetherError('INVALID_RESPONSE', 'the answer is not a JSON-RPC response object', context);
    }
    const envelope = body as Record<string, unknown>;
    if (envelope['error'] !== undefined && envelope['error'] !== null) {
      const parsed = parseAgentError(envelope);
      if (parsed) throw createA2AError(parsed.a2aCode, parsed.message, { ...context, data: parsed.data, reason: parsed.reason });
      throw new TetherError('INVALID_RESPONSE', 'malformed JSON-RPC error object', context);
    }
    if (!('result' in envelope)) {
      throw new TetherError('INVALID_RESPONSE', 'JSON-RPC response has neither result nor error', context);
    }
    return { result: envelope['result'], context };
  }

  private stream(operation: Operation, params: Record<string, unknown>, options: SubscribeOptions | undefined, taskId?: string): EventStream {
    const method = this.method(operation);
    const headers = protocolHeaders(this.context, options, 'text/event-stream');
    if (options?.lastEventId !== undefined) headers['Last-Event-ID'] = options.lastEventId;
    const body = { jsonrpc: '2.0', id: nextId++, method, params: this.params(params) };
    return openEventStream({
      open: (signal) =>
        this.context.http.open({
          operation: method,
          method: 'POST',
          url: this.url,
          body,
          headers,
          expect: 'sse',
          signal,
          timeoutMs: options?.timeoutMs,
          taskId,
        }),
      signal: options?.signal,
      onOpen: options?.onOpen,
      taskId,
      dialect: this.dialect,
      maxEventSize: this.context.maxEventSize,
      unwrap: (json, sse, context) => {
        if (typeof json !== 'object' || json === null) {
          throw new TetherError('MALFORMED_EVENT', 'event is not a JSON-RPC response object', context);
        }
        const envelope = json as Record<string, unknown>;
        if (sse.event === 'error' || (envelope['error'] !== undefined && envelope['error'] !== null)) {
          throw streamError(json, sse, context);
        }
        if (!('result' in envelope)) {
          throw new TetherError('MALFORMED_EVENT', 'JSON-RPC event has neither result nor error', context);
        }
        return envelope['result'];
      },
    });
  }

  async sendMessage(params: SendParams, options?: CallOptions): Promise<SendResult> {
    const { result, context } = await this.call('send', encodeSendParams(params, this.dialect), options, params.message.taskId);
    return decodeOrThrow(() => decodeSendResult(result, this.dialect), context);
  }

  streamMessage(params: SendParams, options?: CallOptions): EventStream {
    return this.stream('stream', encodeSendParams(params, this.dialect), options, params.message.taskId);
  }

  async getTask(taskId: string, historyLength: number | undefined, options?: CallOptions): Promise<Task> {
    const params: Record<string, unknown> = { id: taskId };
    if (historyLength !== undefined) params['historyLength'] = historyLength;
    const { result, context } = await this.call('get', params, options, taskId);
    return decodeOrThrow(() => decodeTask(result, this.dialect), context);
  }

  async listTasks(query: ListTasksQuery, options?: CallOptions): Promise<TaskPage> {
    const params: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      params[key] = key === 'status' ? `TASK_STATE_${String(value).toUpperCase().replace(/-/g, '_')}` : value;
    }
    const { result, context } = await this.call('list', params, options);
    return decodeOrThrow(() => decodeTaskPage(result), context);
  }

  async cancelTask(taskId: string, metadata: Metadata | undefined, options?: CallOptions): Promise<Task> {
    const params: Record<string, unknown> = { id: taskId };
    if (metadata !== undefined) params['metadata'] = metadata;
    const { result, context } = await this.call('cancel', params, options, taskId);
    return decodeOrThrow(() => decodeTask(result, this.dialect), context);
  }

  subscribe(taskId: string, options?: SubscribeOptions): EventStream {
    return this.stream('subscribe', { id: taskId }, options, taskId);
  }

  async createPushConfig(config: PushNotificationConfig, options?: CallOptions): Promise<PushNotificationConfig> {
    const { result, context } = await this.call('pushCreate', encodePushConfig(config, this.dialect), options, config.taskId);
    return decodeOrThrow(() => decodePushConfig(result, config.taskId), context);
  }

  async getPushConfig(taskId: string, configId: string, options?: CallOptions): Promise<PushNotificationConfig> {
    const params =
      this.protocolVersion === '1.0' ? { taskId, id: configId } : { id: taskId, pushNotificationConfigId: configId };
    const { result, context } = await this.call('pushGet', params, options, taskId);
    return decodeOrThrow(() => decodePushConfig(result, taskId), context);
  }

  async listPushConfigs(taskId: string, options?: CallOptions): Promise<PushNotificationConfig[]> {
    const params = this.protocolVersion === '1.0' ? { taskId } : { id: taskId };
    const { result, context } = await this.call('pushList', params, options, taskId);
    return decodeOrThrow(() => decodePushConfigList(result, taskId), context);
  }

  async deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void> {
    const params =
      this.protocolVersion === '1.0' ? { taskId, id: configId } : { id: taskId, pushNotificationConfigId: configId };
    await this.call('pushDelete', params, options, taskId);
  }

  async getExtendedCard(options?: CallOptions): Promise<unknown> {
    const { result } = await this.call('extendedCard', {}, options);
    return result;
  }
}
