// A WebSocket binding for Tether, written only against its public API (issue 21): `CustomBinding` and the
// `Transport` it creates from @a2a-tether/core, the codecs and `eventFeed` of @a2a-tether/core/protocol.
// It speaks A2A v1.0 JSON-RPC over WebSocket, as the testkit's `startWebSocketAgent` serves it: each call
// opens a connection, sends one JSON-RPC request, and reads the response with its id — for a stream, one
// response per event until the notification `stream/end`. A connection that drops ends the stream early,
// and the task engine resumes the task (SubscribeToTask, over WebSocket again).
import { createA2AError, TetherError } from '@a2a-tether/core';
import type {
  BindingContext,
  CallOptions,
  CustomBinding,
  EventFeed,
  ListTasksQuery,
  Metadata,
  PushNotificationConfig,
  SendResult,
  SubscribeOptions,
  Task,
  TaskPage,
  Transport,
} from '@a2a-tether/core';
import { decodePushConfig, decodePushConfigList, decodeSendResult, decodeStreamEvent, decodeTask, decodeTaskPage, encodePushConfig, encodeSendParams, eventFeed } from '@a2a-tether/core/protocol';
import type { SendParams } from '@a2a-tether/core/protocol';

/** A WebSocket constructor: the global one (browsers, Deno, Bun, workerd, Node 22+), or undici's on Node 20. */
export type WebSocketClass = new (url: string) => WebSocket;

/** Options of {@link webSocketBinding}. */
export interface WebSocketBindingOptions {
  /** Default: `globalThis.WebSocket`. */
  WebSocket?: WebSocketClass | undefined;
  /** How long opening a connection may take, in ms, unless the call says `timeoutMs`. Default 10 s. */
  openTimeoutMs?: number | undefined;
}

/** A JSON-RPC message as it arrives. */
interface RpcMessage {
  id?: unknown;
  method?: string;
  params?: { id?: unknown };
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** The binding: `connect(url, { bindings: [webSocketBinding()] })` uses it for the card's `WEBSOCKET` interfaces. */
export function webSocketBinding(options: WebSocketBindingOptions = {}): CustomBinding {
  return {
    name: 'WEBSOCKET',
    protocolVersions: ['1.0'],
    create(context: BindingContext): Transport {
      const Ws = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
      if (!Ws) throw new TetherError('INVALID_ARGUMENT', 'no WebSocket in this runtime: pass webSocketBinding({ WebSocket })', { maybeDelivered: false });
      return new WebSocketTransport(context, Ws, options.openTimeoutMs ?? 10_000);
    },
  };
}

/** One connection's messages, read in order; `null` once it closed. */
class Connection {
  private readonly queue: Array<RpcMessage | null> = [];
  private waiting: ((message: RpcMessage | null) => void) | undefined;

  constructor(readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      try {
        this.push(JSON.parse(String((event as MessageEvent).data)) as RpcMessage);
      } catch {
        this.push({ error: { code: -32700, message: 'the agent sent a WebSocket message that is not JSON' } });
      }
    });
    socket.addEventListener('close', () => this.push(null));
    socket.addEventListener('error', () => this.push(null));
  }

  private push(message: RpcMessage | null): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(message);
    } else this.queue.push(message);
  }

  next(): Promise<RpcMessage | null> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift() ?? null);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  close(): void {
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}

class WebSocketTransport implements Transport {
  readonly binding = 'WEBSOCKET';
  readonly protocolVersion = '1.0' as const;
  readonly url: string;
  private nextId = 1;

  constructor(
    private readonly context: BindingContext,
    private readonly Ws: WebSocketClass,
    private readonly openTimeoutMs: number,
  ) {
    this.url = context.iface.url;
  }

  /** Opens a connection; nothing was sent if this fails (`maybeDelivered: false`). */
  private open(operation: string, options: CallOptions | undefined, signal?: AbortSignal): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const where = { operation, url: this.url };
      if (signal?.aborted || options?.signal?.aborted) return reject(new TetherError('ABORTED', 'aborted before the connection opened', { ...where, maybeDelivered: false }));
      let socket: WebSocket;
      try {
        socket = new this.Ws(this.url);
      } catch (error) {
        return reject(new TetherError('NETWORK', `cannot open a WebSocket: ${String(error)}`, { ...where, maybeDelivered: false, cause: error }));
      }
      const connection = new Connection(socket);
      const timer = setTimeout(() => fail(new TetherError('TIMEOUT', `the WebSocket did not open within ${options?.timeoutMs ?? this.openTimeoutMs} ms`, { ...where, maybeDelivered: false })), options?.timeoutMs ?? this.openTimeoutMs);
      const fail = (error: TetherError): void => {
        clearTimeout(timer);
        connection.close();
        reject(error);
      };
      socket.addEventListener('open', () => {
        clearTimeout(timer);
        resolve(connection);
      });
      socket.addEventListener('error', () => fail(new TetherError('NETWORK', 'the WebSocket could not connect', { ...where, maybeDelivered: false })));
    });
  }

  private request(connection: Connection, method: string, params: Record<string, unknown>): number {
    const id = this.nextId++;
    const tenant = this.context.iface.tenant;
    connection.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: tenant === undefined ? params : { ...params, tenant } }));
    return id;
  }

  private failure(message: RpcMessage, operation: string): TetherError {
    const code = typeof message.error?.code === 'number' ? message.error.code : -32603;
    return createA2AError(code, typeof message.error?.message === 'string' ? message.error.message : 'error', { operation, url: this.url, data: message.error?.data });
  }

  /** One request, one answer: the result, or the agent's error. */
  private async call<T>(method: string, params: Record<string, unknown>, options: CallOptions | undefined, decode: (result: unknown) => T): Promise<T> {
    const connection = await this.open(method, options);
    const onAbort = (): void => connection.close();
    options?.signal?.addEventListener('abort', onAbort);
    try {
      const id = this.request(connection, method, params);
      for (;;) {
        const message = await connection.next();
        if (message === null) throw new TetherError(options?.signal?.aborted ? 'ABORTED' : 'NETWORK', 'the WebSocket closed before the answer', { operation: method, url: this.url });
        if (message.id !== id) continue;
        if (message.error) throw this.failure(message, method);
        return decode(message.result);
      }
    } finally {
      options?.signal?.removeEventListener('abort', onAbort);
      connection.close();
    }
  }

  /** A stream: the events with the request's id until `stream/end`; a closed connection ends it early. */
  private async stream(method: string, params: Record<string, unknown>, options: CallOptions | undefined, signal: AbortSignal, taskId: string | undefined): Promise<EventFeed> {
    const connection = await this.open(method, options, signal);
    const id = this.request(connection, method, params);
    signal.addEventListener('abort', () => connection.close(), { once: true });
    options?.onOpen?.();
    const failure = (message: RpcMessage): TetherError => this.failure(message, method);
    async function* events(): AsyncGenerator<ReturnType<typeof decodeStreamEvent>> {
      for (;;) {
        const message = await connection.next();
        if (message === null) return; // dropped: the stream ended early
        if (message.method === 'stream/end' && message.params?.id === id) return;
        if (message.id !== id) continue;
        if (message.error) throw failure(message);
        yield decodeStreamEvent(message.result, 'v1');
      }
    }
    return eventFeed(events(), { taskId, context: { operation: method, url: this.url }, onClose: () => connection.close() });
  }

  sendMessage(params: SendParams, options?: CallOptions): Promise<SendResult> {
    return this.call('SendMessage', encodeSendParams(params, 'v1') as Record<string, unknown>, options, (r) => decodeSendResult(r, 'v1'));
  }

  openStream(params: SendParams, options: CallOptions | undefined, signal: AbortSignal): Promise<EventFeed> {
    return this.stream('SendStreamingMessage', encodeSendParams(params, 'v1') as Record<string, unknown>, options, signal, params.message.taskId);
  }

  getTask(taskId: string, historyLength: number | undefined, options?: CallOptions): Promise<Task> {
    return this.call('GetTask', historyLength === undefined ? { id: taskId } : { id: taskId, historyLength }, options, (r) => decodeTask(r, 'v1'));
  }

  listTasks(query: ListTasksQuery, options?: CallOptions): Promise<TaskPage> {
    const params: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      params[key] = key === 'status' ? `TASK_STATE_${String(value).toUpperCase().replace(/-/g, '_')}` : value;
    }
    return this.call('ListTasks', params, options, (r) => decodeTaskPage(r));
  }

  cancelTask(taskId: string, metadata: Metadata | undefined, options?: CallOptions): Promise<Task> {
    return this.call('CancelTask', metadata === undefined ? { id: taskId } : { id: taskId, metadata }, options, (r) => decodeTask(r, 'v1'));
  }

  openSubscription(taskId: string, options: SubscribeOptions | undefined, signal: AbortSignal): Promise<EventFeed> {
    return this.stream('SubscribeToTask', { id: taskId }, options, signal, taskId);
  }

  createPushConfig(config: PushNotificationConfig, options?: CallOptions): Promise<PushNotificationConfig> {
    return this.call('CreateTaskPushNotificationConfig', encodePushConfig(config, 'v1') as Record<string, unknown>, options, (r) => decodePushConfig(r, config.taskId));
  }

  getPushConfig(taskId: string, configId: string, options?: CallOptions): Promise<PushNotificationConfig> {
    return this.call('GetTaskPushNotificationConfig', { taskId, id: configId }, options, (r) => decodePushConfig(r, taskId));
  }

  listPushConfigs(taskId: string, options?: CallOptions): Promise<PushNotificationConfig[]> {
    return this.call('ListTaskPushNotificationConfigs', { taskId }, options, (r) => decodePushConfigList(r, taskId));
  }

  async deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void> {
    await this.call('DeleteTaskPushNotificationConfig', { taskId, id: configId }, options, () => undefined);
  }

  getExtendedCard(options?: CallOptions): Promise<unknown> {
    return this.call('GetExtendedAgentCard', {}, options, (r) => r);
  }
}
