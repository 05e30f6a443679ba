import type { A2AClient } from '../client/a2a-client.js';
import type { MessageInput } from '../model/message-input.js';
import type { Message, Task, TaskState } from '../model/types.js';
import type { StartOptions } from '../task/start-task.js';
import type { Scheduler } from '../util/scheduler.js';
import type { TetherPlugin } from '../observe/plugin.js';
import type { TraceContext } from '../observe/trace-context.js';
import type {
  AttemptRecord,
  CheckpointArtifact,
  CostRecord,
  LedgerEntry,
  NodeState,
  RevisionRecord,
  UpdateKind,
  UpdateRecord,
  WorkflowRecord,
  WorkflowState,
} from './workflow-record.js';
import type { WorkflowStore } from './workflow-store.js';

/** What a hop's `input` function gets to build its message. */
export interface HopInput {
  /** The node's id. */
  node: string;
  /** The instructions in force: build the message from these, not from what the workflow started with. */
  revision: RevisionRecord;
  /** The adopted results of the node's dependencies (`dependsOn`), by node id. */
  results: Readonly<Record<string, HopResult>>;
  /** The attempt this one succeeds (after an update superseded it), for reference. */
  previous?: AttemptRecord | undefined;
}

/** A node's adopted result: its task's artifacts as checkpointed. */
export interface HopResult {
  node: string;
  taskId: string | undefined;
  artifacts: CheckpointArtifact[];
  /**
   * The text parts of every artifact, joined (a convenience for the next hop's prompt); for a task that
   * answered with no artifact, the text of its final status message.
   */
  text: string;
  /** The task's final status message, if it had one. */
  statusMessage?: Message | undefined;
}

/** One hop of the delegation graph: a task on one agent. */
export interface HopSpec {
  /** Unique within the workflow; also the key of its record. */
  id: string;
  /** A key of `WorkflowOptions.agents`. */
  agent: string;
  /**
   * The node that delegates this one (default: the workflow's root). Cancelling a node cancels every
   * node below it.
   */
  parent?: string | undefined;
  /** Nodes whose results this one needs: it starts once each of them completed and was checkpointed. */
  dependsOn?: string[] | undefined;
  /**
   * Builds the message that starts the hop's task. Tether adds the workflow's `contextId`, a message id
   * (the send's idempotency key), `referenceTaskIds` to the attempt it succeeds, and metadata
   * `a2a-tether/workflow`, `a2a-tether/node`, `a2a-tether/revision`.
   */
  input(context: HopInput): MessageInput | Promise<MessageInput>;
  /** How long one attempt may run, pauses included (ms). On breach, `escalate` decides (default: cancel the hop). */
  timeoutMs?: number | undefined;
  /** How long a pause of this hop may wait for a human answer (ms). On breach, `escalate` decides (default: cancel). */
  pauseSlaMs?: number | undefined;
  /**
   * `false` for a hop whose failure leaves the workflow `partial` rather than `failed` — e.g. a
   * verification: its inputs' results are kept and reported, labelled `incomplete` with the reason. Default `true`.
   */
  required?: boolean | undefined;
  /**
   * Adopt this hop's result only when the agent says it was made under the revision the attempt was
   * sent with: `a2a-tether/revision` (a number, or its digits) in the metadata of the task, its final
   * status message or one of its artifacts (of the message, for an agent that answers with one). A
   * result without it is recorded and not adopted: the attempt keeps its task, artifacts and
   * `rejectedReason`, and the node fails with that reason (its dependents are skipped; `required: false`
   * makes the workflow `partial` instead of `failed`). Default `false`: the official A2A servers do not
   * echo request metadata. A result that names another revision is never adopted, with or without it.
   */
  requireRevisionEcho?: boolean | undefined;
}

/** A budget ran out. */
export interface Breach {
  kind: 'hop-timeout' | 'pause-sla' | 'deadline';
  /** The node (not for `deadline`). */
  node?: string | undefined;
  taskId?: string | undefined;
  /** The budget that ran out (ms). */
  budgetMs: number;
}

/**
 * What to do about a breach: `cancel` the node (for `deadline`: every node still running; the
 * workflow ends with the results it has), `fail` the workflow (cancelling everything running),
 * extend the budget, or cancel the attempt and hand the node to another agent (a key of `agents`).
 */
export type Escalation = 'cancel' | 'fail' | { extendMs: number } | { handTo: string };

/** A human pause somewhere below the workflow, waiting for an answer. */
export interface WorkflowPause {
  /** Pass it (or the object) to `answer()`. */
  id: string;
  node: string;
  agent: string;
  taskId: string;
  state: Extract<TaskState, 'input-required' | 'auth-required'>;
  /** What the agent asked. */
  message?: Message | undefined;
  since: string;
}

/** One answer for `answer()`. */
export interface PauseAnswer {
  pause: string | WorkflowPause;
  input: MessageInput;
}

/** What became of one answer. */
export interface PauseAnswerOutcome {
  pause: string;
  node: string | undefined;
  ok: boolean;
  error?: Error | undefined;
}

/** An update of the user's while the work runs (`update()`). The app classifies it; Tether records and applies it. */
export interface WorkflowUpdate {
  kind: UpdateKind;
  /** The user's words (for a correction or new goal: the new instructions). */
  text: string;
  /** Who sent it (default `user`). */
  by?: string | undefined;
  /**
   * For a correction or new goal: the nodes whose work it changes (their dependents follow). Default:
   * a correction affects every node not completed yet; a new goal affects every node.
   */
  affects?: string[] | undefined;
}

/** An external action for the ledger (`act()`): your own side effect, admitted under a revision. */
export interface ActionSpec<T> {
  /** The revision the action was decided under (read `workflow.revision` when deciding). */
  revision: number;
  target: string;
  operation: string;
  /** The operation's idempotency key: reused only for the same intended action (same target, operation and input). */
  key: string;
  /** The action's input (hashed into the ledger; not stored). */
  input: unknown;
  /** The node it belongs to, if any. */
  node?: string | undefined;
  /** Performs it. Throw an error with `maybeDelivered: false` (a `TetherError`) when it surely did nothing. */
  perform(key: string): Promise<T>;
  /**
   * Asks the target whether the action with this key happened: `{ found: true, result }` or
   * `{ found: false }`. Without it (or when it throws), an unknown outcome stays unresolved.
   */
  lookup?: ((key: string) => Promise<LookupAnswer<T>>) | undefined;
}

/** What a lookup learned. */
export type LookupAnswer<T = unknown> = { found: true; result: T } | { found: false };

/**
 * What the workflow emits, in order. A `node` event goes out once its change is written to the store;
 * a node's `running` comes twice, before its send and once the agent named the task (`taskId`), and
 * once more after a restart picks the task up again.
 */
export type WorkflowEvent =
  | { type: 'node'; node: string; state: NodeState; attempt?: number | undefined; taskId?: string | undefined }
  | { type: 'pause'; pause: WorkflowPause }
  | { type: 'pause-answered'; pause: string; node: string }
  | { type: 'update'; update: UpdateRecord }
  | { type: 'late-result'; node: string; taskId: string | undefined; reason: string }
  | { type: 'action'; entry: LedgerEntry }
  | { type: 'escalation'; breach: Breach; decision: Escalation }
  | { type: 'done'; summary: WorkflowSummary };

/** Options of `startWorkflow()`. */
export interface WorkflowOptions {
  /** The workflow's id: the store's key. Starting with an id the store knows resumes that workflow. */
  id: string;
  /** The instructions (revision 1). */
  goal: string;
  hops: HopSpec[];
  /** The agents by name, each a connected client. */
  agents: Readonly<Record<string, A2AClient>>;
  /**
   * Where the workflow is persisted (default: memory — nothing survives a restart). A store that leases
   * workflows (`createRedisWorkflowStore` from `@a2a-tether/node/redis`) makes this process the workflow's
   * one driver while it holds the lease: see `LeasingWorkflowStore`.
   */
  store?: WorkflowStore | undefined;
  /**
   * With a store that leases workflows: who this process is (unique per process, e.g. host + pid + a random
   * suffix). Default: `tether-` and a random id.
   */
  leaseOwner?: string | undefined;
  /** End-to-end budget from the workflow's creation (ms); persisted, so a restart keeps it. */
  deadlineMs?: number | undefined;
  /**
   * Aborting it cancels the whole workflow, by `signal`, with the abort reason as the reason (compose
   * it with `AbortSignal.any` / `AbortSignal.timeout` for budgets of your own).
   */
  signal?: AbortSignal | undefined;
  /** Decides what a breached budget does (default `cancel`). */
  escalate?: ((breach: Breach) => Escalation | Promise<Escalation>) | undefined;
  /**
   * Reads a task's cost. Default: `metadata.cost` of the task, else of its final status message —
   * a number (unit `units`) or `{ amount, unit }`.
   */
  cost?: ((task: Task) => CostRecord | undefined) | undefined;
  /** After a cancel request, how long to watch for the task to reach `canceled` (ms, default 5,000). */
  cancelWaitMs?: number | undefined;
  /** Options for every hop's `client.start()` (delivery mode, timeouts). */
  start?: StartOptions | undefined;
  /** The actor named in cancels the workflow makes itself (budgets): default `budget`. */
  budgetActor?: string | undefined;
  /**
   * Timers and clock of the budgets and of looking for a lost send (default: `realScheduler`, the host's).
   * A test passes the testkit's `ManualScheduler` to run an hour's budget in milliseconds (docs/orchestration.md).
   */
  scheduler?: Scheduler | undefined;
  /** Clock (epoch ms; default: the scheduler's). */
  now?: (() => number) | undefined;
  /** Ids (message ids, the context id), for tests. */
  newId?: (() => string) | undefined;
  /**
   * A low-cardinality name of this kind of workflow (`research-report`), for telemetry: the
   * `invoke_workflow` span's `gen_ai.workflow.name`. Not the id (one per run).
   */
  name?: string | undefined;
  /**
   * The trace the workflow continues (the caller's span; `@a2a-tether/otel` uses the active
   * OpenTelemetry context when none is given). Its hops and every request of their tasks share its
   * trace id. A workflow resumed from its store continues the trace it started with.
   */
  traceContext?: TraceContext | undefined;
  /**
   * The plugins that see the workflow's and hops' spans (`onSpanStart` / `onSpanEnd`). Default: every
   * distinct plugin of the agents' clients (pass one `otel()` to each `connect()`, or the plugin here).
   */
  plugins?: readonly TetherPlugin[] | undefined;
}

/** A node as the summary shows it. */
export interface NodeSummary {
  id: string;
  agent: string;
  parent: string | undefined;
  state: NodeState;
  /** The attempts, oldest first: superseded ones stay for audit. */
  attempts: AttemptRecord[];
  /** Wall time of its attempts together (ms). */
  durationMs: number;
  cost: CostRecord[];
  reason?: string | undefined;
}

/** What a user can read at the end (or at any time). */
export interface WorkflowSummary {
  id: string;
  state: WorkflowState;
  revision: number;
  /** What changed: every update after the goal, in order. */
  changed: UpdateRecord[];
  /** Results of nodes completed under an older revision and kept (not superseded). */
  completedBeforeChange: string[];
  /** What is unresolved: ledger entries with an unknown outcome nothing settled, cancels not confirmed, unresolved nodes. */
  unresolved: string[];
  /** The workflow's results: the adopted results of completed nodes, and kept partial output labelled incomplete. */
  results: Array<{
    node: string;
    taskId: string | undefined;
    artifacts: CheckpointArtifact[];
    /**
     * `complete`: the node completed, every artifact's last chunk arrived, and every node depending on it
     * completed. `incomplete` otherwise — `why` says which: the hop failed midway, an artifact is partial,
     * or a hop that uses it (a verification) did not complete.
     */
    label: 'complete' | 'incomplete';
    why?: string | undefined;
  }>;
  nodes: NodeSummary[];
  /** Cost per agent and unit, and in total per unit. */
  cost: { byAgent: Record<string, CostRecord[]>; total: CostRecord[] };
  /**
   * Latency per agent over its ended attempts: how many, their total and longest wall time (ms), and for
   * each the time from the send to the task's first event (ms).
   */
  latency: Record<string, { attempts: number; totalMs: number; maxMs: number; firstEventMs: number[] }>;
  durationMs: number;
  record: WorkflowRecord;
}
