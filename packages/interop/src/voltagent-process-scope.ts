import type { VoltAgentObservability } from '@voltagent/core';

/**
 * What running @voltagent/core inside a test process needs, for as long as a VoltAgent server is
 * open and no longer:
 *
 * - `NODE_ENV=production`. @voltagent/core decides when it is first loaded whether to refresh its
 *   model catalogue over the network (every non-production load does), and reads NODE_ENV again
 *   for its log level. So it is set before the scope's dynamic import of @voltagent/core.
 * - A guard for unhandled rejections whose reason is an `AbortError`: when tasks/cancel aborts a
 *   task whose message/stream is still open, a promise inside the agent's run rejects with the
 *   A2A server's AbortError and nothing handles it, which ends a plain Node process and fails a
 *   vitest run. While the scope is open the process's other `unhandledRejection`
 *   listeners (vitest's among them) are taken off; the guard swallows only such aborts (and
 *   records them) and hands every other rejection to those listeners, so real failures surface.
 * - One global observability for the agents. An Agent ignores its `observability` option and
 *   otherwise creates its own, whose span store keeps a 60 s interval alive that nothing can stop;
 *   the scope's own is shut down on exit. Its remote exporter is left out (sampling 'never').
 *
 * Scopes nest (servers may overlap): the first entry changes the process, the last exit restores
 * NODE_ENV (or its absence), the listeners and the global observability exactly as they were.
 */
type RejectionListener = (reason: unknown, promise: Promise<unknown>) => void;

interface Saved {
  readonly nodeEnv: string | undefined;
  readonly listeners: readonly RejectionListener[];
  /** Set once @voltagent/core is loaded. */
  observability?: { readonly ours: VoltAgentObservability; restore(): void } | undefined;
}

let holders = 0;
let saved: Saved | undefined;
let loading: Promise<void> | undefined;
const swallowed: unknown[] = [];

function isAbortError(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'AbortError';
}

const guard: RejectionListener = (reason, promise) => {
  if (isAbortError(reason)) {
    swallowed.push(reason);
    return;
  }
  for (const listener of saved?.listeners ?? []) listener.call(process, reason, promise);
};

async function installObservability(state: Saved): Promise<void> {
  const { AgentRegistry, createVoltAgentObservability } = await import('@voltagent/core');
  const registry = AgentRegistry.getInstance();
  const previous = registry.getGlobalObservability();
  const ours = createVoltAgentObservability({ serviceName: 'tether-interop', voltOpsSync: { sampling: { strategy: 'never' } } });
  registry.setGlobalObservability(ours);
  // The registry's setter is typed without undefined, which is what it held before.
  state.observability = { ours, restore: () => registry.setGlobalObservability(previous as VoltAgentObservability) };
}

/** One holder's hold on the scope. */
export interface VoltagentScope {
  /** The AbortError rejections swallowed since the scope was first entered (shared by all holders). */
  readonly swallowedRejections: readonly unknown[];
  /** Leave the scope (idempotent). */
  exit(): Promise<void>;
}

/** Enter the scope; @voltagent/core can be imported once this resolves. */
export async function enterVoltagentScope(): Promise<VoltagentScope> {
  if (holders === 0) {
    const state: Saved = {
      nodeEnv: process.env['NODE_ENV'],
      listeners: process.listeners('unhandledRejection') as RejectionListener[],
    };
    saved = state;
    swallowed.length = 0;
    process.env['NODE_ENV'] = 'production';
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', guard);
    loading = installObservability(state);
  }
  holders++;
  let exited: Promise<void> | undefined;
  const exit = (): Promise<void> => (exited ??= leave());
  try {
    await loading;
  } catch (error) {
    await exit();
    throw error;
  }
  return { swallowedRejections: swallowed, exit };
}

async function leave(): Promise<void> {
  holders--;
  const state = saved;
  if (holders > 0 || state === undefined) return;
  saved = undefined;
  loading = undefined;
  try {
    if (state.observability !== undefined) {
      state.observability.restore();
      await state.observability.ours.shutdown();
    }
  } finally {
    process.off('unhandledRejection', guard);
    for (const listener of state.listeners) process.on('unhandledRejection', listener);
    if (state.nodeEnv === undefined) delete process.env['NODE_ENV'];
    else process.env['NODE_ENV'] = state.nodeEnv;
  }
}
