import type { A2AServerRegistry, ServerProviderDeps } from '@voltagent/core';
import type { JsonRpcRequest, TaskRecord } from '@voltagent/a2a-server';
import { listenOnLoopback } from './listen-loopback.js';
import { scriptedModel } from './scripted-model.js';
import { enterVoltagentScope } from './voltagent-process-scope.js';

export interface VoltagentServerOptions {
  /** The agent's id: it names the card path and the JSON-RPC path. Default `tether-volt`. */
  readonly agentId?: string | undefined;
  /** Delay before each streamed word of an ordinary answer (ms). Default 15. */
  readonly deltaDelayMs?: number | undefined;
  /** Deltas of a `slow` answer unless the message says `steps=`. Default 50. */
  readonly slowSteps?: number | undefined;
  /** Delay before each delta of a `slow` answer unless the message says `delayMs=` (ms). Default 100. */
  readonly slowDelayMs?: number | undefined;
}

/** One JSON-RPC request as it reached the A2A server. */
export interface VoltagentRpcCall {
  readonly method: string;
  /** `params.message.messageId` of a send. */
  readonly messageId: string | undefined;
  /** `params.id` of tasks/get and tasks/cancel, `params.message.taskId` of a send. */
  readonly taskId: string | undefined;
  /** The first text part of a send's message. */
  readonly text: string | undefined;
}

/** A task the server stored, with the text of the message that created it. */
export interface VoltagentCreatedTask {
  readonly id: string;
  readonly text: string | undefined;
}

/** A running `@voltagent/a2a-server` with one agent on a scripted model. */
export interface VoltagentServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** `<baseUrl>/.well-known/<agentId>/agent-card.json` (not the standard path). */
  readonly cardUrl: string;
  /** `<baseUrl>/a2a/<agentId>`: JSON-RPC (`POST`), v0.3 shapes. */
  readonly rpcUrl: string;
  readonly agentId: string;
  /** Every JSON-RPC request the A2A server handled, in arrival order. */
  readonly rpcCalls: readonly VoltagentRpcCall[];
  /** Every task the server stored, in the order they were first saved. */
  readonly createdTasks: readonly VoltagentCreatedTask[];
  /** The user text of every model call, in order: what reached the agent. */
  readonly modelCalls: readonly string[];
  /** The server's stored view of a task (what tasks/get answers), or undefined. */
  storedTask(taskId: string): Promise<TaskRecord | undefined>;
  /** AbortError rejections that @voltagent/core left unhandled (swallowed; see voltagent-process-scope.ts). */
  readonly swallowedRejections: readonly unknown[];
  /** Closes every connection and the listener, stops scripted delays, restores the process. */
  close(): Promise<void>;
}

/**
 * Starts `@voltagent/a2a-server` mounted by `@voltagent/server-hono` on 127.0.0.1 (port 0), in this
 * process: one `@voltagent/core` Agent on a {@link scriptedModel}, served through the real hono
 * routes (card, JSON-RPC and its SSE framing) with only the A2A routes mounted.
 */
export async function startVoltagentServer(options: VoltagentServerOptions = {}): Promise<VoltagentServer> {
  const agentId = options.agentId ?? 'tether-volt';
  // Before any import of @voltagent/*: core reads NODE_ENV when it loads.
  const scope = await enterVoltagentScope();
  try {
    const [{ Agent }, { A2AServer, A2AServerRegistry, InMemoryTaskStore }, { createVoltAgentApp }, { getRequestListener }] = await Promise.all([
      import('@voltagent/core'),
      import('@voltagent/a2a-server'),
      import('@voltagent/server-hono'),
      import('@hono/node-server'),
    ]);

    const closed = new AbortController();
    const modelCalls: string[] = [];
    const agent = new Agent({
      id: agentId,
      name: agentId,
      purpose: 'Answers from a script (echo, slow, fail) for Tether interop tests.',
      instructions: '',
      model: scriptedModel({
        deltaDelayMs: options.deltaDelayMs ?? 15,
        slowSteps: options.slowSteps ?? 50,
        slowDelayMs: options.slowDelayMs ?? 100,
        closed: closed.signal,
        onCall: (text) => modelCalls.push(text),
      }),
      memory: false,
      // A failing call fails the task at once instead of being retried by the agent.
      maxRetries: 0,
    });

    const taskStore = new InMemoryTaskStore();
    const createdTasks: VoltagentCreatedTask[] = [];
    const save = taskStore.save.bind(taskStore);
    taskStore.save = async (params) => {
      const { id, history } = params.data;
      if (!createdTasks.some((task) => task.id === id)) createdTasks.push({ id, text: history[0]?.parts[0]?.text });
      await save(params);
    };

    const a2a = new A2AServer({ id: agentId, name: agentId, version: '2.0.3', agents: { [agentId]: agent } });
    const rpcCalls: VoltagentRpcCall[] = [];
    const handleRequest = a2a.handleRequest.bind(a2a);
    a2a.handleRequest = (id, request, context) => {
      rpcCalls.push(describeCall(request));
      return handleRequest(id, request, context);
    };
    const registry = new A2AServerRegistry();
    const registrable = a2a as unknown as RegistrableServer;
    registry.register(registrable, { agentRegistry: { getAgent: () => undefined, getAllAgents: () => [] }, taskStore });

    // Only the A2A routes are mounted (configureFullApp), and they read nothing but `a2a` and `logger`.
    const deps = { a2a: { registry } } as unknown as ServerProviderDeps;
    const { app } = await createVoltAgentApp(deps, { configureFullApp: ({ routes }) => routes['a2a']?.() });
    // overrideGlobalObjects: false keeps the process's Request/Response (undici's) as they are.
    const listener = await listenOnLoopback(getRequestListener(app.fetch, { overrideGlobalObjects: false }));

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        // The default reason, an AbortError, is what the scope's rejection guard expects.
        closed.abort();
        try {
          await listener.close();
        } finally {
          registry.unregister(registrable);
          await scope.exit();
        }
      })());

    return {
      baseUrl: listener.origin,
      cardUrl: `${listener.origin}/.well-known/${agentId}/agent-card.json`,
      rpcUrl: `${listener.origin}/a2a/${agentId}`,
      agentId,
      rpcCalls,
      createdTasks,
      modelCalls,
      async storedTask(taskId) {
        return (await taskStore.load({ agentId, taskId })) ?? undefined;
      },
      swallowedRejections: scope.swallowedRejections,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await scope.exit();
    throw error;
  }
}

/**
 * What the registry accepts. `A2AServer` is one, but its `getMetadata()` declares `id: string | undefined`,
 * which the registry's type rejects under `exactOptionalPropertyTypes`.
 */
type RegistrableServer = Parameters<A2AServerRegistry['register']>[0];

function describeCall(request: JsonRpcRequest): VoltagentRpcCall {
  const params = isRecord(request.params) ? request.params : {};
  const message = isRecord(params['message']) ? params['message'] : {};
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const parts = Array.isArray(message['parts']) ? (message['parts'] as unknown[]) : [];
  const firstText = parts.find((part): part is Record<string, unknown> => isRecord(part) && part['kind'] === 'text');
  return {
    method: request.method,
    messageId: text(message['messageId']),
    taskId: text(params['id']) ?? text(message['taskId']),
    text: text(firstText?.['text']),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
