import { createContext, createElement, useCallback, useContext, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { TetherError, type A2AClient, type CancelOptions, type CancelOutcome, type MessageInput, type SendOptions, type StartOptions, type TaskHandle } from '@a2a-tether/browser';
import { agentSource, startTask, taskListSource, type AgentSnapshot, type TaskListSnapshot, type UseAgentOptions } from './agent-source.js';
import { IDLE, taskSources, type TaskSnapshot } from './task-source.js';

const ClientContext = createContext<A2AClient | undefined>(undefined);

/** Props of {@link TetherProvider}. */
export interface TetherProviderProps {
  /** The client the hooks below use when none is passed to them. */
  client: A2AClient | undefined;
  children?: ReactNode;
}

/** Gives the components below a client: `useTask(taskId)` and `useTasks()` use it when none is passed. */
export function TetherProvider(props: TetherProviderProps): ReactNode {
  return createElement(ClientContext.Provider, { value: props.client }, props.children);
}

/** The client of the nearest {@link TetherProvider} (`undefined` outside one). */
export function useTetherClient(): A2AClient | undefined {
  return useContext(ClientContext);
}

/** What {@link useAgent} returns: the connection, and `start` once connected. */
export interface AgentState extends AgentSnapshot {
  /**
   * Starts a task (`client.start()`), registering its handle so that `useTask(taskId)` shows it over
   * that handle. Rejects with `INVALID_ARGUMENT` before the client is connected.
   */
  start(input: MessageInput, options?: StartOptions): Promise<TaskHandle>;
}

/**
 * Connects to the agent at `url` once for the whole page (every component asking for the same `url` and
 * `options.key` shares the client) and renders `connecting`, `ready` with the client, or `error`. The
 * options are read on the first call; the client lives as long as the page. `url` `undefined`: nothing.
 */
export function useAgent(url: string | URL | undefined, options: UseAgentOptions = {}): AgentState {
  const source = url === undefined ? undefined : agentSource(String(url), options);
  const snapshot = useSyncExternalStore(source?.subscribe ?? noSubscribe, source?.getSnapshot ?? noAgent, source?.getSnapshot ?? noAgent);
  const start = useCallback(
    (input: MessageInput, startOptions?: StartOptions): Promise<TaskHandle> => {
      const client = snapshot.client;
      if (!client) return Promise.reject(new TetherError('INVALID_ARGUMENT', 'start: the agent is not connected yet', { maybeDelivered: false }));
      return startTask(client, input, startOptions);
    },
    [snapshot.client],
  );
  return useMemo(() => ({ ...snapshot, start }), [snapshot, start]);
}

/** What {@link useTask} returns: the task's snapshot, and what can be done to it. */
export interface TaskState extends TaskSnapshot {
  /** Answers the pause (`input-required` / `auth-required`); the same task goes on. */
  reply(input: MessageInput, options?: SendOptions): Promise<void>;
  /** Asks the agent to cancel. A request is not a confirmation: the outcome says which it was. */
  cancel(options?: CancelOptions): Promise<CancelOutcome>;
}

/**
 * One task, live: its state, its artifacts as they grow, the connection, the pause to answer, progress
 * and the error that ended its follow. Give the handle `start()` returned, or a task id (from
 * `useTasks()`, from the URL…): a task this page follows already is shown over that follow; another is
 * followed again with `client.resume()` (in a tab that does not stream it, that mirrors the tab that
 * does: still one connection per task) and detached once no component shows it. `client`: default the
 * {@link TetherProvider}'s.
 */
export function useTask(task: TaskHandle | string | undefined, client?: A2AClient): TaskState {
  const provided = useContext(ClientContext);
  const owner = client ?? provided;
  const source = useMemo(() => {
    if (task === undefined) return undefined;
    if (typeof task !== 'string') return taskSources.ofHandle(task);
    return owner ? taskSources.ofTaskId(owner, task) : undefined;
  }, [task, owner]);
  const snapshot = useSyncExternalStore(source?.subscribe ?? noSubscribe, source?.getSnapshot ?? noTask, source?.getSnapshot ?? noTask);
  const shown = typeof task === 'string' && !source ? noClientFor(task) : snapshot;
  const reply = useCallback(
    (input: MessageInput, options?: SendOptions) => (source ? source.reply(input, options) : Promise.reject(noTaskError('reply'))),
    [source],
  );
  const cancel = useCallback((options?: CancelOptions) => (source ? source.cancel(options) : Promise.reject(noTaskError('cancel'))), [source]);
  return useMemo(() => ({ ...shown, reply, cancel }), [shown, reply, cancel]);
}

/**
 * Every task of the agent in this browser — started in this tab or any other of the same store — live:
 * listed again whenever one starts, changes state or outcome, or is removed (one `watchTasks()` for the
 * page). Finished tasks stay listed for their retention. `client`: default the {@link TetherProvider}'s.
 */
export function useTasks(client?: A2AClient): TaskListSnapshot {
  const provided = useContext(ClientContext);
  const owner = client ?? provided;
  const source = owner ? taskListSource(owner) : undefined;
  return useSyncExternalStore(source?.subscribe ?? noSubscribe, source?.getSnapshot ?? noList, source?.getSnapshot ?? noList);
}

const noSubscribe = (): (() => void) => () => undefined;
const NO_AGENT: AgentSnapshot = Object.freeze({ status: 'connecting', client: undefined, error: undefined }) as AgentSnapshot;
const noAgent = (): AgentSnapshot => NO_AGENT;
const noTask = (): TaskSnapshot => IDLE;
const NO_LIST: TaskListSnapshot = Object.freeze({ records: Object.freeze([]) as readonly never[], loading: true, error: undefined }) as TaskListSnapshot;
const noList = (): TaskListSnapshot => NO_LIST;
const noTaskError = (what: string): TetherError => new TetherError('INVALID_ARGUMENT', `${what}: no task`, { maybeDelivered: false });
const noClients = new Map<string, TaskSnapshot>();
/** A task id with no client to follow it through: an error snapshot (one per id, so it is stable). */
function noClientFor(taskId: string): TaskSnapshot {
  let snapshot = noClients.get(taskId);
  if (!snapshot) {
    const error = new TetherError('INVALID_ARGUMENT', `useTask("${taskId}"): no client (pass one, or render inside <TetherProvider client={…}>)`, { maybeDelivered: false });
    noClients.set(taskId, (snapshot = Object.freeze({ ...IDLE, taskId, status: 'error', error }) as TaskSnapshot));
  }
  return snapshot;
}
