import type { AgentError } from './agent-error.js';
import type { MisbehaviourSelection } from './misbehaviour.js';
import { clone } from './model.js';
import type {
  TaskEvent,
  TaskSnapshot,
  TestArtifact,
  TestMessage,
  TestPushConfig,
  TestTaskRecord,
  TestTaskState,
  TestTaskStatus,
} from './model.js';
import type { TestAgentBehaviour } from './options.js';
import { TaskMisbehaviour } from './task-misbehaviour.js';

/** Something following a task or a run: open streams, blocking sends. Called synchronously. */
export interface TaskObserver {
  /** The run answered with a Message and created no task. */
  message?(message: TestMessage): void;
  /** The task emitted an event; the first is the creation (`type: 'task'`) event. */
  event?(event: TaskEvent, entry: TaskEntry): void;
  /** The scenario run finished (no more events); `error` when it ended with a protocol error. */
  end?(error: AgentError | undefined): void;
}

/** The scenario run that drives a task, as the registry and the operations see it (`ScenarioRun`). */
export interface TaskRun {
  /** Still running (events may follow). */
  readonly active: boolean;
  /** Settles when the run finished. */
  readonly done: Promise<void>;
  /** Tells `observer` of every event from now on; returns the unsubscribe function. */
  observe(observer: TaskObserver): () => void;
  /** Hands the run the text of a reply (input-required). */
  pushInput(text: string): void;
  /** The client asked to cancel the task. */
  cancel(): void;
  /** Stops the run (the agent is closing). */
  abort(reason: string): void;
}

/** Server-side state of one task. */
export class TaskEntry {
  artifacts: TestArtifact[] = [];
  readonly events: TaskEvent[] = [];
  readonly pushConfigs = new Map<string, TestPushConfig>();
  readonly observers = new Set<TaskObserver>();
  /** Every state the task was in, one per status event (the creation included). */
  readonly states: TestTaskState[] = [];
  /** `history.length` right after each event (index = seq - 1), so an old snapshot can be rebuilt. */
  readonly historyLengths: number[] = [];
  /** The scenario run that drives this task (kept after it finished). */
  run: TaskRun | undefined;

  constructor(
    readonly id: string,
    readonly contextId: string,
    /** Creation order, used to sort equal timestamps. */
    readonly order: number,
    public status: TestTaskStatus,
    readonly history: TestMessage[],
    /** The misbehaviours in force for this task. */
    readonly misbehaviour: TaskMisbehaviour,
  ) {
    this.states.push(status.state);
  }

  /** True once the `lose` misbehaviour made the agent forget this task. */
  get lost(): boolean {
    return this.misbehaviour.lostWith(this.events.length);
  }

  /** The task's generation (v1.1 draft): 1 at creation (also while its creation event is made), +1 per event. */
  get generation(): number {
    return Math.max(1, this.events.length);
  }

  /** A deep copy of the task as the wire shows it (with its generation, under `behaviour.generations`). */
  snapshot(): TaskSnapshot {
    const task: TaskSnapshot = clone({
      id: this.id,
      contextId: this.contextId,
      status: this.status,
      artifacts: this.artifacts,
      history: this.history,
    });
    if (this.misbehaviour.generations) task.generation = this.generation;
    return task;
  }

  /** The public read-only view. */
  record(): TestTaskRecord {
    const view: TestTaskRecord = {
      id: this.id,
      contextId: this.contextId,
      state: this.status.state,
      statusTimestamp: this.status.timestamp,
      artifacts: clone(this.artifacts),
      history: clone(this.history),
      pushConfigs: clone([...this.pushConfigs.values()]),
      eventCount: this.events.length,
      generation: this.generation,
      states: [...this.states],
    };
    if (this.status.message !== undefined) view.statusMessage = clone(this.status.message);
    if (this.lost) view.lost = true;
    return view;
  }
}

/** Hooks the agent plugs into the registry. */
export interface RegistryHooks {
  /** Every event of every task, after observers ran (push delivery). */
  onEvent(entry: TaskEntry, event: TaskEvent): void;
}

/** Milliseconds since the epoch, kept strictly increasing so status order is never ambiguous. */
function makeClock(): () => number {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return last;
  };
}

/** All tasks of one agent, with their event logs. Survives stop()/start(). */
export class TaskRegistry {
  private readonly entries = new Map<string, TaskEntry>();
  private readonly runs = new Set<TaskRun>();
  private order = 0;
  private readonly clock = makeClock();
  /** Set by close(): runs stop mutating state and nothing is sent anymore. */
  closed = false;
  /** Every pending `ctx.sleep()` timer, of running scenarios and of ended ones that left one behind. */
  readonly sleeps = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly hooks: RegistryHooks,
    /** The agent's live behaviour switches (agent-wide misbehaviours are read from it on every use). */
    private readonly behaviour: TestAgentBehaviour = {},
  ) {}

  /** Misbehaviours for something that is not a task (a Message reply): the agent-wide ones only. */
  agentWideMisbehaviour(): TaskMisbehaviour {
    return new TaskMisbehaviour(this.behaviour);
  }

  /** Tasks other than `entry` that the agent still knows (`foreign` borrows their ids). */
  others(entry: TaskEntry): TaskEntry[] {
    return this.all().filter((other) => other !== entry && !other.lost);
  }

  get(id: string): TaskEntry | undefined {
    return this.entries.get(id);
  }

  all(): TaskEntry[] {
    return [...this.entries.values()];
  }

  trackRun(run: TaskRun): void {
    this.runs.add(run);
  }

  untrackRun(run: TaskRun): void {
    this.runs.delete(run);
  }

  /**
   * Create a task in `submitted` with the user's message as history, and emit it. `selection` holds the
   * misbehaviours the task's scenario command selected.
   */
  create(
    id: string,
    contextId: string,
    userMessage: TestMessage,
    statusMessage: TestMessage | undefined,
    observers: Iterable<TaskObserver>,
    run: TaskRun,
    selection?: MisbehaviourSelection,
  ): TaskEntry {
    const misbehaviour = new TaskMisbehaviour(this.behaviour, selection);
    const message = this.statusMessage(misbehaviour, id, contextId, 'submitted', statusMessage);
    const history = [clone(userMessage)];
    if (message !== undefined) history.push(clone(message));
    const status: TestTaskStatus = { state: 'submitted', timestamp: this.timestamp(misbehaviour, 1) };
    if (message !== undefined) status.message = clone(message);
    const entry = new TaskEntry(id, contextId, ++this.order, status, history, misbehaviour);
    entry.run = run;
    // Observers that waited on the run move to the task before its first event goes out.
    for (const observer of observers) entry.observers.add(observer);
    this.entries.set(id, entry);
    this.emit(entry, { seq: 1, type: 'task', task: entry.snapshot() });
    return entry;
  }

  setStatus(entry: TaskEntry, state: TestTaskState, statusMessage?: TestMessage): void {
    const seq = entry.events.length + 1;
    const status: TestTaskStatus = { state, timestamp: this.timestamp(entry.misbehaviour, seq) };
    const message = this.statusMessage(entry.misbehaviour, entry.id, entry.contextId, state, statusMessage);
    if (message !== undefined) {
      status.message = clone(message);
      entry.history.push(clone(message));
    }
    entry.status = status;
    entry.states.push(state);
    this.emit(entry, {
      seq,
      type: 'status',
      taskId: entry.id,
      contextId: entry.contextId,
      status: clone(status),
    });
  }

  addArtifact(entry: TaskEntry, artifact: TestArtifact, append: boolean, lastChunk: boolean): void {
    const index = entry.artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    const existing = index >= 0 ? entry.artifacts[index] : undefined;
    if (append && existing !== undefined) {
      existing.parts.push(...clone(artifact.parts));
      if (artifact.metadata !== undefined) existing.metadata = { ...existing.metadata, ...clone(artifact.metadata) };
    } else if (index >= 0) {
      entry.artifacts[index] = clone(artifact);
    } else {
      entry.artifacts.push(clone(artifact));
    }
    this.emit(entry, {
      seq: entry.events.length + 1,
      type: 'artifact',
      taskId: entry.id,
      contextId: entry.contextId,
      artifact: clone(artifact),
      append,
      lastChunk,
    });
  }

  /** Abort every run (their timers go with them). */
  close(): void {
    this.closed = true;
    for (const run of this.runs) run.abort('agent closed');
    this.runs.clear();
    // A scenario that ended while a sleep of its own was pending (it lost a race) is no run any more: its
    // timer would keep the process alive. The sleep never settles; nobody waits for it.
    for (const timer of this.sleeps) clearTimeout(timer);
    this.sleeps.clear();
  }

  /** The agent's clock, moved by the `skew*` misbehaviours: GetTask shows the same skewed times. */
  private timestamp(misbehaviour: TaskMisbehaviour, seq: number): string {
    return new Date(this.clock() + misbehaviour.skewMs(seq)).toISOString();
  }

  /** `reuseMessageId`: every status gets a message, all with the same id. Otherwise the message as given. */
  private statusMessage(
    misbehaviour: TaskMisbehaviour,
    taskId: string,
    contextId: string,
    state: TestTaskState,
    message: TestMessage | undefined,
  ): TestMessage | undefined {
    if (!misbehaviour.has('reuseMessageId')) return message;
    const parts = message?.parts ?? [{ kind: 'text' as const, text: state }];
    return { role: 'agent', taskId, contextId, ...message, parts, messageId: `status-${taskId}` };
  }

  private emit(entry: TaskEntry, event: TaskEvent): void {
    entry.events.push(event);
    entry.historyLengths.push(entry.history.length);
    for (const observer of [...entry.observers]) observer.event?.(event, entry);
    this.hooks.onEvent(entry, event);
  }
}
