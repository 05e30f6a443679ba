import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { A2A_ERROR_CODES, AgentError, invalidParams, taskNotFound, unsupportedOperation } from './agent-error.js';
import { buildCard } from './card.js';
import { AnswerCut } from './lose-answer.js';
import type { CardDialect, CardUrls } from './card.js';
import { parseMisbehaviourSelection } from './misbehaviour.js';
import type { SubscribeRefusal } from './misbehaviour.js';
import { clone, firstText, isInterrupted, isTerminal } from './model.js';
import type { TaskEvent, TaskSnapshot, TestMessage, TestPushConfig, TestTaskState } from './model.js';
import type { ResolvedOptions } from './options.js';
import { ScenarioRun } from './scenario-run.js';
import { parseScenarioCommand } from './scenario.js';
import type { StreamSession } from './stream-session.js';
import { taskAsOf } from './task-as-of.js';
import type { TaskMisbehaviour } from './task-misbehaviour.js';
import type { TaskEntry, TaskObserver, TaskRegistry } from './task-registry.js';
import type { PushConfigInput, SendParams, SendResult } from './wire-codec.js';

/** ListTasks filters (v1 only), version-neutral. */
export interface ListTasksQuery {
  contextId?: string | undefined;
  status?: TestTaskState | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
  historyLength?: number | undefined;
  statusTimestampAfter?: string | undefined;
  includeArtifacts?: boolean | undefined;
}

/** A GetTask that asked to be held (`currentGeneration`, v1.1 draft), as the agent answered it. */
export interface TestLongPoll {
  taskId: string;
  /** The generation the client asked to get past. */
  currentGeneration: number;
  /** Whether the agent held the answer (the task was not past that generation yet). */
  held: boolean;
  /** The generation the answer showed. */
  answered: number;
}

export interface ListTasksResult {
  tasks: TaskSnapshot[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

type Version = '1.0' | '0.3';

/**
 * `historyLength`: v1 — unset all, 0 none, N the newest N. v0.3 — N > 0 the newest N, otherwise all
 * (the v0.3 proto comment reads 0 as "unlimited").
 */
export function limitHistory(task: TaskSnapshot, historyLength: number | undefined, version: Version): TaskSnapshot {
  if (historyLength === undefined) return task;
  if (historyLength < 0) throw invalidParams('historyLength must not be negative');
  if (version === '1.0') task.history = historyLength === 0 ? [] : task.history.slice(-historyLength);
  else if (historyLength > 0) task.history = task.history.slice(-historyLength);
  return task;
}

function encodePageToken(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodePageToken(token: string): number {
  const match = /^offset:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (match?.[1] === undefined) throw invalidParams(`Invalid pageToken: ${token}`);
  return Number(match[1]);
}

/**
 * The A2A operations, version- and binding-neutral. Bindings decode requests into these calls and encode
 * the results; errors are thrown as AgentError.
 */
export class AgentOperations {
  /** Every GetTask with `currentGeneration` (under `behaviour.generations`), oldest first. */
  readonly longPolls: TestLongPoll[] = [];

  constructor(
    private readonly registry: TaskRegistry,
    private readonly options: ResolvedOptions,
    private readonly cardUrls: () => CardUrls,
  ) {}

  // --- send / stream ---------------------------------------------------------------------------------

  async send(params: SendParams, version: Version): Promise<SendResult> {
    const result = await this.sendRaw(params, version);
    if (result.kind === 'task') limitHistory(result.task, params.historyLength, version);
    return result;
  }

  /** Start a streaming send. Throws before the stream starts; afterwards the session owns the response. */
  stream(params: SendParams, version: Version, session: StreamSession): void {
    this.requireStreaming();
    const { message } = params;
    if (message.taskId !== undefined) {
      const entry = this.followUpTarget(message, params.ifGenerationMatch);
      this.addInlinePushConfig(entry, params.pushConfig, version);
      session.bind(entry);
      const stale = entry.misbehaviour.has('stalePause');
      // v1 streams start with a Task snapshot on every turn; v0.3 follow-ups start with the next event.
      if (version === '1.0' && !stale) session.snapshotOnNextEvent();
      const run = entry.run;
      if (run?.active === true) session.attach(run.observe(session));
      this.acceptFollowUp(entry, message);
      // `stalePause`: the task as it stands, before the answer moved it (the scenario goes on a tick later).
      if (stale) session.writeAsItStands(entry);
      if (run?.active !== true) session.end(undefined);
      return;
    }
    const run = this.newRun(message);
    session.attach(run.observe(session));
    this.observeCreation(run, params.pushConfig, version);
    run.start();
  }

  private sendRaw(params: SendParams, version: Version): Promise<SendResult> {
    const { message, blocking } = params;
    if (message.taskId !== undefined) {
      const entry = this.followUpTarget(message, params.ifGenerationMatch);
      this.addInlinePushConfig(entry, params.pushConfig, version);
      const run = entry.run;
      if (!blocking || run?.active !== true) {
        this.acceptFollowUp(entry, message);
        return Promise.resolve({ kind: 'task', task: entry.snapshot() });
      }
      return new Promise<SendResult>((resolve) => {
        const done = (): void => {
          detach();
          resolve({ kind: 'task', task: entry.snapshot() });
        };
        const detach = run.observe({
          event: (event) => {
            if (event.type === 'status' && settles(event.status.state)) done();
          },
          end: () => done(),
        });
        this.acceptFollowUp(entry, message);
      });
    }
    return new Promise<SendResult>((resolve, reject) => {
      const run = this.newRun(message);
      let settled = false;
      const finish = (result: SendResult | AgentError): void => {
        if (settled) return;
        settled = true;
        detach();
        if (result instanceof AgentError) reject(result);
        else resolve(result);
      };
      const observer: TaskObserver = {
        message: (reply) => finish({ kind: 'message', message: clone(reply) }),
        event: (event, entry) => {
          const created = event.type === 'task' && !blocking;
          if (created || (event.type === 'status' && settles(event.status.state))) {
            finish({ kind: 'task', task: entry.snapshot() });
          }
        },
        end: (error) => {
          if (error !== undefined) finish(error);
          else if (run.entry !== undefined) finish({ kind: 'task', task: run.entry.snapshot() });
        },
      };
      const detach = run.observe(observer);
      this.observeCreation(run, params.pushConfig, version);
      run.start();
    });
  }

  private newRun(message: TestMessage): ScenarioRun {
    const { name, params } = parseScenarioCommand(firstText(message));
    const misbehaviour = parseMisbehaviourSelection(params);
    const scenarioName = this.options.scenarios[name] !== undefined ? name : 'echo';
    const scenario = this.options.scenarios[scenarioName];
    if (scenario === undefined) throw new AgentError(A2A_ERROR_CODES.internalError, 'No "echo" scenario registered');
    return new ScenarioRun(
      this.registry,
      scenarioName,
      scenario,
      clone(message),
      this.options.taskId(),
      message.contextId ?? randomUUID(),
      misbehaviour,
    );
  }

  /** Register an inline push config as the task is created, so the creation event is pushed too. */
  private observeCreation(run: ScenarioRun, push: PushConfigInput | undefined, version: Version): void {
    if (push === undefined) return;
    const detach = run.observe({
      event: (event: TaskEvent, entry: TaskEntry) => {
        if (event.type !== 'task') return;
        detach();
        this.addInlinePushConfig(entry, push, version);
      },
      end: () => detach(),
    });
  }

  private addInlinePushConfig(entry: TaskEntry, push: PushConfigInput | undefined, version: Version): void {
    if (push === undefined) return;
    this.requirePush();
    this.storePushConfig(entry, push, version);
  }

  private followUpTarget(message: TestMessage, ifGenerationMatch?: number): TaskEntry {
    const taskId = message.taskId ?? '';
    const entry = this.entry(taskId);
    if (ifGenerationMatch !== undefined && entry.misbehaviour.generations && ifGenerationMatch !== entry.generation) {
      throw new AgentError(
        A2A_ERROR_CODES.taskGenerationMismatch,
        `Task generation mismatch: expected ${ifGenerationMatch} but current generation is ${entry.generation}`,
        { taskId, expectedGeneration: String(ifGenerationMatch), currentGeneration: String(entry.generation) },
      );
    }
    if (message.contextId !== undefined && message.contextId !== entry.contextId) {
      throw invalidParams(`contextId ${message.contextId} does not match task ${taskId} (context ${entry.contextId})`);
    }
    const state = entry.status.state;
    if (!isInterrupted(state)) {
      throw unsupportedOperation(
        isTerminal(state)
          ? `Task ${taskId} is ${state}; it accepts no more messages`
          : `Task ${taskId} is ${state}, not waiting for input`,
      );
    }
    return entry;
  }

  private acceptFollowUp(entry: TaskEntry, message: TestMessage): void {
    entry.history.push(clone({ ...message, taskId: entry.id, contextId: entry.contextId }));
    entry.run?.pushInput(firstText(message));
  }

  // --- get / list / cancel ---------------------------------------------------------------------------

  get(id: string, historyLength: number | undefined, version: Version): TaskSnapshot {
    const entry = this.entry(id);
    // `stale`: now and then an answer shows the task a few events back, until it is terminal.
    const back = isTerminal(entry.status.state) ? 0 : entry.misbehaviour.nextStaleBack();
    const task = back === 0 ? entry.snapshot() : taskAsOf(entry, entry.events.length - back);
    return limitHistory(task, historyLength, version);
  }

  /**
   * GetTask with `currentGeneration` (v1.1 draft): under `behaviour.generations`, held until the task's
   * generation is past it (an event), its run ends, or `generationHoldMs` passed; otherwise {@link get}.
   */
  async getPast(id: string, historyLength: number | undefined, version: Version, currentGeneration: number | undefined): Promise<TaskSnapshot> {
    const entry = this.entry(id);
    if (currentGeneration === undefined || version !== '1.0' || !entry.misbehaviour.generations) return this.get(id, historyLength, version);
    const held = entry.generation <= currentGeneration && entry.run?.active === true;
    if (held) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          detach();
          resolve();
        };
        const timer = setTimeout(done, this.options.behaviour.generationHoldMs ?? 2000);
        timer.unref();
        const detach = entry.run?.observe({ event: done, end: done }) ?? ((): void => undefined);
      });
    }
    const task = this.get(id, historyLength, version);
    this.longPolls.push({ taskId: id, currentGeneration, held, answered: task.generation ?? 0 });
    return task;
  }

  list(query: ListTasksQuery): ListTasksResult {
    const pageSize = query.pageSize ?? 50;
    if (pageSize < 1 || pageSize > 100) throw invalidParams('pageSize must be between 1 and 100');
    let after: number | undefined;
    if (query.statusTimestampAfter !== undefined) {
      after = Date.parse(query.statusTimestampAfter);
      if (Number.isNaN(after)) throw invalidParams(`statusTimestampAfter is not a timestamp: ${query.statusTimestampAfter}`);
    }
    const matching = this.registry
      .all()
      .filter((entry) => !entry.lost)
      .filter((entry) => query.contextId === undefined || entry.contextId === query.contextId)
      .filter((entry) => query.status === undefined || entry.status.state === query.status)
      .filter((entry) => after === undefined || Date.parse(entry.status.timestamp) >= after)
      .sort((a, b) => b.status.timestamp.localeCompare(a.status.timestamp) || b.order - a.order);
    const offset = query.pageToken === undefined ? 0 : decodePageToken(query.pageToken);
    const page = matching.slice(offset, offset + pageSize);
    const nextOffset = offset + page.length;
    return {
      tasks: page.map((entry) => {
        const task = limitHistory(entry.snapshot(), query.historyLength, '1.0');
        if (query.includeArtifacts !== true) task.artifacts = [];
        return task;
      }),
      nextPageToken: nextOffset < matching.length ? encodePageToken(nextOffset) : '',
      pageSize,
      totalSize: matching.length,
    };
  }

  /** Best effort: abort the scenario and wait briefly for it to end; answer with the task as it then is. */
  async cancel(id: string): Promise<TaskSnapshot> {
    const entry = this.entry(id);
    if (isTerminal(entry.status.state)) {
      throw new AgentError(
        A2A_ERROR_CODES.taskNotCancelable,
        `Task ${id} is ${entry.status.state} and cannot be canceled`,
      );
    }
    const run = entry.run;
    if (run?.active === true) {
      run.cancel();
      const timeout = new AbortController();
      await Promise.race([run.done, delay(this.options.cancelWaitMs, undefined, { signal: timeout.signal }).catch(() => {})]);
      timeout.abort();
    } else {
      this.registry.setStatus(entry, 'canceled');
    }
    // `cutCancel`: done, but the connection is reset before the answer.
    if (entry.misbehaviour.has('cutCancel')) throw new AnswerCut(`the answer to CancelTask ${id} is cut`);
    return entry.snapshot();
  }

  // --- subscribe -------------------------------------------------------------------------------------

  subscribe(id: string, lastEventId: string | undefined, version: Version, session: StreamSession): void {
    this.requireStreaming();
    const entry = this.entry(id);
    const behaviour = this.options.behaviour;
    if (entry.misbehaviour.has('refuseSubscribe')) {
      refuseSubscription(entry.misbehaviour.refusal, version, session);
      return;
    }
    session.bind(entry);
    if (entry.misbehaviour.has('replayClose')) {
      // Like a server that only knows finished tasks: the state as it is, then the end, whatever runs on.
      session.writeSnapshot(entry);
      session.endNow();
      return;
    }
    const afterSeq = behaviour.sseIds === true ? parseLastEventId(lastEventId, entry.id) : undefined;
    if (afterSeq !== undefined) {
      const missed = entry.events.filter((event) => event.seq > afterSeq);
      if (missed.length > 0 || !isTerminal(entry.status.state)) {
        session.replay(missed, entry);
        this.follow(entry, session);
        return;
      }
    }
    if (isTerminal(entry.status.state)) {
      if (entry.misbehaviour.has('refuseFinished')) {
        const why = `Task ${id} is in terminal state: ${entry.status.state}`;
        throw version === '1.0' ? invalidParams(why) : new AgentError(A2A_ERROR_CODES.internalError, why);
      }
      if (version === '1.0') throw unsupportedOperation(`Task ${id} is ${entry.status.state}; there is nothing to subscribe to`);
      // The v0.3 proto: a subscription to a finished task gets the final Task and closes.
      session.writeSnapshot(entry);
      return;
    }
    if (behaviour.subscribeSnapshot ?? version === '1.0') session.writeSnapshot(entry);
    if (behaviour.replayOnResubscribe === true) session.replay(entry.events, entry);
    this.follow(entry, session);
  }

  private follow(entry: TaskEntry, session: StreamSession): void {
    session.settle(entry);
    if (session.finished) return;
    const run = entry.run;
    if (run !== undefined) session.attach(run.observe(session));
  }

  // --- push configs ----------------------------------------------------------------------------------

  pushCreate(taskId: string, input: PushConfigInput, version: Version): TestPushConfig {
    this.requirePush();
    return clone(this.storePushConfig(this.entry(taskId), input, version));
  }

  /** Without `id`, the v0.3 default config (id = task id) or else the first one. */
  pushGet(taskId: string, id: string | undefined): TestPushConfig {
    this.requirePush();
    const entry = this.entry(taskId);
    const config =
      id === undefined
        ? (entry.pushConfigs.get(taskId) ?? entry.pushConfigs.values().next().value)
        : entry.pushConfigs.get(id);
    if (config === undefined) {
      throw new AgentError(
        A2A_ERROR_CODES.taskNotFound,
        `Push notification config ${id ?? '(default)'} not found for task ${taskId}`,
      );
    }
    return clone(config);
  }

  pushList(taskId: string): TestPushConfig[] {
    this.requirePush();
    return clone([...this.entry(taskId).pushConfigs.values()]);
  }

  /** Idempotent: deleting a config that is not there succeeds. */
  pushDelete(taskId: string, id: string): void {
    this.requirePush();
    this.entry(taskId).pushConfigs.delete(id);
  }

  private storePushConfig(entry: TaskEntry, input: PushConfigInput, version: Version): TestPushConfig {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw invalidParams(`Push notification url is not a URL: ${input.url}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw invalidParams(`Push notification url must be http(s): ${input.url}`);
    }
    // Like the official servers: v0.3 defaults the config id to the task id, v1 generates one.
    const id = input.id ?? (version === '0.3' ? entry.id : randomUUID());
    const config: TestPushConfig = { id, taskId: entry.id, url: input.url, dialect: version };
    if (input.token !== undefined) config.token = input.token;
    if (input.authentication !== undefined) config.authentication = clone(input.authentication);
    entry.pushConfigs.set(id, config);
    return config;
  }

  // --- cards -----------------------------------------------------------------------------------------

  extendedCard(dialect: CardDialect): Record<string, unknown> {
    if (!this.options.extendedAgentCard) throw unsupportedOperation('This agent has no extended agent card');
    return buildCard(this.options, this.cardUrls(), dialect, true);
  }

  // --- helpers ---------------------------------------------------------------------------------------

  /** Misbehaviours of streams that follow no task: the agent-wide ones. */
  agentWideMisbehaviour(): TaskMisbehaviour {
    return this.registry.agentWideMisbehaviour();
  }

  /** The tasks other than `entry` the agent knows (for the `foreign` misbehaviour). */
  otherTasks(entry: TaskEntry): TaskEntry[] {
    return this.registry.others(entry);
  }

  /** A task the agent knows: not there, or forgotten (`lose`), is -32001. */
  private entry(id: string): TaskEntry {
    const entry = this.registry.get(id);
    if (entry === undefined || entry.lost) throw taskNotFound(id);
    return entry;
  }

  private requireStreaming(): void {
    if (!this.options.streaming) throw unsupportedOperation('Streaming is not supported by this agent');
  }

  private requirePush(): void {
    if (!this.options.pushNotifications) {
      throw new AgentError(A2A_ERROR_CODES.pushNotificationNotSupported, 'Push notifications are not supported by this agent');
    }
  }
}

/** Bodies of `refuseSubscribe` answers that are not A2A errors, as gateways and frameworks send them. */
const REFUSAL_BODIES: Readonly<Record<404 | 405 | 501, { contentType: string; body: string }>> = {
  404: { contentType: 'text/html; charset=utf-8', body: '<!doctype html><html><body><h1>404 Not Found</h1></body></html>\n' },
  405: { contentType: 'text/plain; charset=utf-8', body: 'Method Not Allowed\n' },
  501: { contentType: 'application/json', body: '{"detail":"Not Implemented"}' },
};

/** `refuseSubscribe`: an A2A error (thrown, so the binding answers it) or a plain HTTP answer. */
function refuseSubscription(refusal: SubscribeRefusal, version: Version, session: StreamSession): void {
  const method = version === '1.0' ? 'SubscribeToTask' : 'tasks/resubscribe';
  if (refusal === -32601) throw new AgentError(A2A_ERROR_CODES.methodNotFound, `Method not found: ${method}`);
  if (refusal === -32004) throw unsupportedOperation(`${method} is not supported by this agent`);
  if (refusal === -32602) throw invalidParams(`${method}: invalid parameters`);
  if (refusal === -32603) throw new AgentError(A2A_ERROR_CODES.internalError, `${method} failed`);
  const { contentType, body } = REFUSAL_BODIES[refusal];
  session.refuse(refusal, contentType, body);
}

/** A blocking send returns once the task is terminal or interrupted. */
function settles(state: TestTaskState): boolean {
  return isTerminal(state) || isInterrupted(state);
}

/** `<taskId>:<seq>` → seq, when it names this task. */
function parseLastEventId(value: string | undefined, taskId: string): number | undefined {
  if (value === undefined) return undefined;
  const cut = value.lastIndexOf(':');
  if (cut < 0 || value.slice(0, cut) !== taskId) return undefined;
  const seq = Number(value.slice(cut + 1));
  return Number.isInteger(seq) && seq >= 0 ? seq : undefined;
}
