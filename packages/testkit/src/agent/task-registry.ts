import type { AgentError } from './agent-error.js';
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
import type { ScenarioRun } from './scenario-run.js';

/** Something following a task or a run: open streams, blocking sends. Called synchronously. */
export interface TaskObserver {
  /** The run answered with a Message and created no task. */
  message?(message: TestMessage): void;
  /** The task emitted an event; the first is the creation (`type: 'task'`) event. */
  event?(event: TaskEvent, entry: TaskEntry): void;
  /** The scenario run finished (no more events); `error` when it ended with a protocol error. */
  end?(error: AgentError | undefined): void;
}

/** Server-side state of one task. */
export class TaskEntry {
  artifacts: TestArtifact[] = [];
  readonly events: TaskEvent[] = [];
  readonly pushConfigs = new Map<string, TestPushConfig>();
  readonly observers = new Set<TaskObserver>();
  /** The scenario run that drives this task (kept after it finished). */
  run: ScenarioRun | undefined;

  constructor(
    readonly id: string,
    readonly contextId: string,
    /** Creation order, used to sort equal timestamps. */
    readonly order: number,
    public status: TestTaskStatus,
    readonly history: TestMessage[],
  ) {}

  /** A deep copy of the task as the wire shows it. */
  snapshot(): TaskSnapshot {
    return clone({
      id: this.id,
      contextId: this.contextId,
      status: this.status,
      artifacts: this.artifacts,
      history: this.history,
    });
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
    };
    if (this.status.message !== undefined) view.statusMessage = clone(this.status.message);
    return view;
  }
}

/** Hooks the agent plugs into the registry. */
export interface RegistryHooks {
  /** Every event of every task, after observers ran (push delivery). */
  onEvent(entry: TaskEntry, event: TaskEvent): void;
}

/** ISO 8601 UTC with milliseconds, kept strictly increasing so status order is never ambiguous. */
function makeClock(): () => string {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return new Date(last).toISOString();
  };
}

/** All tasks of one agent, with their event logs. Survives stop()/start(). */
export class TaskRegistry {
  private readonly entries = new Map<string, TaskEntry>();
  private readonly runs = new Set<ScenarioRun>();
  private order = 0;
  readonly now = makeClock();
  /** Set by close(): runs stop mutating state and nothing is sent anymore. */
  closed = false;

  constructor(private readonly hooks: RegistryHooks) {}

  get(id: string): TaskEntry | undefined {
    return this.entries.get(id);
  }

  all(): TaskEntry[] {
    return [...this.entries.values()];
  }

  trackRun(run: ScenarioRun): void {
    this.runs.add(run);
  }

  untrackRun(run: ScenarioRun): void {
    this.runs.delete(run);
  }

  /** Create a task in `status` (normally submitted) with the user's message as history, and emit it. */
  create(
    id: string,
    contextId: string,
    userMessage: TestMessage,
    statusMessage: TestMessage | undefined,
    observers: Iterable<TaskObserver>,
    run: ScenarioRun,
  ): TaskEntry {
    const history = [clone(userMessage)];
    if (statusMessage !== undefined) history.push(clone(statusMessage));
    const status: TestTaskStatus = { state: 'submitted', timestamp: this.now() };
    if (statusMessage !== undefined) status.message = clone(statusMessage);
    const entry = new TaskEntry(id, contextId, ++this.order, status, history);
    entry.run = run;
    // Observers that waited on the run move to the task before its first event goes out.
    for (const observer of observers) entry.observers.add(observer);
    this.entries.set(id, entry);
    this.emit(entry, { seq: 1, type: 'task', task: entry.snapshot() });
    return entry;
  }

  setStatus(entry: TaskEntry, state: TestTaskState, message?: TestMessage): void {
    const status: TestTaskStatus = { state, timestamp: this.now() };
    if (message !== undefined) {
      status.message = clone(message);
      entry.history.push(clone(message));
    }
    entry.status = status;
    this.emit(entry, {
      seq: entry.events.length + 1,
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
  }

  private emit(entry: TaskEntry, event: TaskEvent): void {
    entry.events.push(event);
    for (const observer of [...entry.observers]) observer.event?.(event, entry);
    this.hooks.onEvent(entry, event);
  }
}
