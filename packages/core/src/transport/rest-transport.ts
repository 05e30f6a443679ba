import type { Binding, ProtocolVersion } from '../card/card-types.js';
import { A2AError } from '../errors/a2a-errors.js';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import type { HttpRequest, OpenResponse } from '../http/http-client.js';
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
import { checkId, type IdKind } from './check-id.js';
import { decodeOrThrow } from './decode-or-throw.js';
import { SseEventFeed, type EventFeed } from './event-feed.js';
import { decodeFrameEvent, parseFrame, streamError, type FrameDecoder } from './frame.js';
import { statusAgentError } from './status-error.js';
import { isObject } from '../util/is-object.js';
import type { CallOptions, GetTaskCallOptions, ListTasksQuery, SubscribeOptions, Transport } from './transport.js';
import { dialectOf, protocolHeaders, type TransportContext } from './transport-context.js';

const JSON_ACCEPT = 'application/a2a+json, application/json';

/** An HTTP+JSON stream's frames: each one event (a mid-stream error is an `error` event or an error body, #1262). */
class RestFrameDecoder implements FrameDecoder {
  constructor(
    private readonly dialect: Dialect,
    private readonly secrets: readonly string[],
  ) {}

  decode(frame: SseEvent, index: number, context: () => ErrorContext): StreamEvent {
    const { secrets } = this;
    const json = parseFrame(frame, index, context, secrets);
    if (frame.event === 'error' || (isObject(json) && 'error' in json && !('task' in json))) throw streamError(json, frame, context, secrets, statusAgentError);
    return decodeFrameEvent(json, this.dialect, index, context, secrets);
  }
}

/** HTTP+JSON (REST), v1.0 (`/message:send`, tenant prefix) or v0.3 (`/v1/message:send`). */
export class RestTransport implements Transport {
  readonly binding: Binding = 'HTTP+JSON';
  readonly protocolVersion: ProtocolVersion;
  readonly url: string;
  private readonly dialect: Dialect;
  /** The spec's proto says GET, its prose POST; servers differ. Learned on first use. */
  private subscribeMethod: 'POST' | 'GET' | undefined;

  constructor(
    private readonly context: TransportContext,
    private readonly encoder: Encoder,
  ) {
    this.protocolVersion = context.iface.protocolVersion;
    this.url = context.iface.url;
    this.dialect = dialectOf(context);
  }

  /** The URL of an operation; v1.0 puts the tenant first. */
  private path(operation: string, ...segments: string[]): string {
    const base = this.url.replace(/\/+$/, '');
    const tenant = this.protocolVersion === '0.3' ? undefined : this.context.iface.tenant;
    const prefix = this.protocolVersion === '0.3' ? '/v1' : tenant !== undefined ? `/${this.segment('tenant', tenant, operation)}` : '';
    return `${base}${prefix}${segments.join('')}`;
  }

  /** One path segment holding an id: dot segments and empty ids would change the route. */
  private segment(kind: IdKind, value: string, operation: string): string {
    checkId(kind, value, operation);
    return encodeURIComponent(value);
  }

  private task(taskId: string, operation: string): string {
    return `/tasks/${this.segment('task id', taskId, operation)}`;
  }

  private pushConfig(taskId: string, configId: string, operation: string): string {
    return this.path(operation, `${this.task(taskId, operation)}/pushNotificationConfigs/${this.segment('push config id', configId, operation)}`);
  }

  private request(
    operation: string,
    method: HttpRequest['method'],
    url: string,
    options: CallOptions | undefined,
    extra: Partial<HttpRequest> = {},
  ): HttpRequest {
    return {
      operation,
      method,
      url,
      headers: protocolHeaders(this.context, options, JSON_ACCEPT),
      expect: 'json',
      signal: options?.signal,
      timeoutMs: options?.timeoutMs,
      trace: options?.traceContext,
      ...extra,
    };
  }

  private async json<T>(request: HttpRequest, decode: (body: unknown) => T): Promise<T> {
    const answer = await this.context.http.json(request);
    return this.context.http.settle(answer, () => decodeOrThrow(() => decode(answer.body), answer.context, answer.secrets));
  }

  private async feed(open: OpenResponse, taskId: string | undefined): Promise<EventFeed> {
    return new SseEventFeed(open, new RestFrameDecoder(this.dialect, open.secrets), this.context.maxEventSize, { taskId });
  }

  private sse(request: HttpRequest): HttpRequest {
    return { ...request, expect: 'sse', headers: { ...request.headers, Accept: 'text/event-stream' } };
  }

  sendMessage(params: SendParams, options?: CallOptions): Promise<SendResult> {
    const request = this.request('SendMessage', 'POST', this.path('SendMessage', '/message:send'), options, {
      body: this.encoder.sendParams(params),
      taskId: params.message.taskId,
      messageId: params.message.messageId,
    });
    return this.json(request, (body) => decodeSendResult(body, this.dialect));
  }

  async openStream(params: SendParams, options: CallOptions | undefined, signal: AbortSignal): Promise<EventFeed> {
    const request = this.request('SendStreamingMessage', 'POST', this.path('SendStreamingMessage', '/message:stream'), options, {
      body: this.encoder.sendParams(params),
      taskId: params.message.taskId,
      messageId: params.message.messageId,
    });
    const open = await this.context.http.open({ ...this.sse(request), signal });
    return this.feed(open, params.message.taskId);
  }

  getTask(taskId: string, historyLength: number | undefined, options?: GetTaskCallOptions): Promise<Task> {
    const url = new URL(this.path('GetTask', this.task(taskId, 'GetTask')));
    if (historyLength !== undefined) url.searchParams.set('historyLength', String(historyLength));
    // v1.1 draft long poll (§11.5: `?currentGeneration=5`).
    if (options?.currentGeneration !== undefined) url.searchParams.set('currentGeneration', String(options.currentGeneration));
    const request = this.request('GetTask', 'GET', url.href, options, { taskId });
    return this.json(request, (body) => decodeTask(body, this.dialect));
  }

  listTasks(query: ListTasksQuery, options?: CallOptions): Promise<TaskPage> {
    if (this.protocolVersion !== '1.0') {
      return Promise.reject(
        new TetherError('UNSUPPORTED_OPERATION', 'ListTasks does not exist in A2A v0.3 (it is new in v1.0)', {
          operation: 'ListTasks',
          url: this.url,
        }),
      );
    }
    const url = new URL(this.path('ListTasks', '/tasks'));
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      url.searchParams.set(
        key,
        key === 'status' ? `TASK_STATE_${String(value).toUpperCase().replace(/-/g, '_')}` : String(value),
      );
    }
    return this.json(this.request('ListTasks', 'GET', url.href, options), decodeTaskPage);
  }

  cancelTask(taskId: string, metadata: Metadata | undefined, options?: CallOptions): Promise<Task> {
    // Always a JSON object body, never `null` (some servers reject an empty cancel body).
    const request = this.request('CancelTask', 'POST', this.path('CancelTask', `${this.task(taskId, 'CancelTask')}:cancel`), options, {
      body: metadata === undefined ? {} : { metadata },
      taskId,
    });
    return this.json(request, (body) => decodeTask(body, this.dialect));
  }

  async openSubscription(taskId: string, options: SubscribeOptions | undefined, signal: AbortSignal): Promise<EventFeed> {
    const url = this.path('SubscribeToTask', `${this.task(taskId, 'SubscribeToTask')}:subscribe`);
    const request = (method: 'POST' | 'GET'): HttpRequest => {
      const base = this.request('SubscribeToTask', method, url, options, { taskId, signal, ...(method === 'POST' ? { body: {} } : {}) });
      if (options?.lastEventId !== undefined) base.headers = { ...base.headers, 'Last-Event-ID': options.lastEventId };
      return this.sse(base);
    };
    const method = this.subscribeMethod ?? 'POST';
    let open: OpenResponse;
    try {
      open = await this.context.http.open(request(method));
      this.subscribeMethod = method;
    } catch (error) {
      // 404/405 without an A2A error body means "no such route": try GET (a TaskNotFound is also a 404).
      const wrongMethod =
        error instanceof TetherError && !(error instanceof A2AError) && (error.status === 404 || error.status === 405);
      if (this.subscribeMethod !== undefined || method !== 'POST' || !wrongMethod) throw error;
      open = await this.context.http.open(request('GET'));
      this.subscribeMethod = 'GET';
    }
    return this.feed(open, taskId);
  }

  createPushConfig(config: PushNotificationConfig, options?: CallOptions): Promise<PushNotificationConfig> {
    const operation = 'CreateTaskPushNotificationConfig';
    const url = this.path(operation, `${this.task(config.taskId, operation)}/pushNotificationConfigs`);
    const request = this.request(operation, 'POST', url, options, { body: this.encoder.pushConfig(config), taskId: config.taskId });
    return this.json(request, (body) => decodePushConfig(body, config.taskId));
  }

  getPushConfig(taskId: string, configId: string, options?: CallOptions): Promise<PushNotificationConfig> {
    const url = this.pushConfig(taskId, configId, 'GetTaskPushNotificationConfig');
    const request = this.request('GetTaskPushNotificationConfig', 'GET', url, options, { taskId });
    return this.json(request, (body) => decodePushConfig(body, taskId));
  }

  listPushConfigs(taskId: string, options?: CallOptions): Promise<PushNotificationConfig[]> {
    const operation = 'ListTaskPushNotificationConfigs';
    const url = this.path(operation, `${this.task(taskId, operation)}/pushNotificationConfigs`);
    const request = this.request(operation, 'GET', url, options, { taskId });
    return this.json(request, (body) => decodePushConfigList(body, taskId));
  }

  async deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void> {
    const url = this.pushConfig(taskId, configId, 'DeleteTaskPushNotificationConfig');
    await this.json(this.request('DeleteTaskPushNotificationConfig', 'DELETE', url, options, { taskId, expect: 'any' }), () => undefined);
  }

  async getExtendedCard(options?: CallOptions): Promise<unknown> {
    const path = this.protocolVersion === '0.3' ? '/card' : '/extendedAgentCard';
    const url = this.path('GetExtendedAgentCard', path);
    return this.json(this.request('GetExtendedAgentCard', 'GET', url, options), (body) => body);
  }
}
