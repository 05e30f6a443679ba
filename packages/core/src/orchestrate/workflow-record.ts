// The persisted shape of a workflow. Everything here is plain JSON: a WorkflowStore writes it whole,
// and a restarted orchestrator rebuilds its state from it alone.

import type { CostRecord } from '../model/cost.js';
import type { Artifact, Message, TaskState } from '../model/types.js';

/** Version of {@link WorkflowRecord}; a store refuses records newer than it knows. */
export const WORKFLOW_RECORD_VERSION = 1;

/** How the app classified an update that arrived while the work runs. A pause is not a cancel. */
export type UpdateKind = 'question' | 'correction' | 'pause' | 'resume' | 'cancel' | 'new-goal';

/**
 * One update of the user's, in arrival order. Corrections and new goals create an instruction
 * revision (`revision`); questions, pauses, resumes and cancels are recorded in the same order but
 * leave the instructions as they were.
 */
export interface UpdateRecord {
  /** 1, 2, 3 … in the order the orchestrator accepted them. */
  seq: number;
  kind: UpdateKind;
  text: string;
  /** Who sent it (free text, e.g. a user id). */
  by: string;
  at: string;
  /** The instruction revision in force after this update. */
  revision: number;
  /** Node ids the update affects (corrections and new goals). */
  affects?: string[] | undefined;
}

/** An instruction revision. Revision 1 is the workflow's goal; older ones are kept for audit. */
export interface RevisionRecord {
  n: number;
  text: string;
  /** The update that created it (0 for the goal). */
  updateSeq: number;
  at: string;
  /** The revision this one replaced. */
  supersedes?: number | undefined;
}

/** What a node is doing, as the orchestrator sees it. */
export type NodeState =
  /** Waiting for its dependencies, for the gate to open, or not started yet. */
  | 'pending'
  | 'running'
  /** Its task waits for a human answer (see the workflow's pauses). */
  | 'input-required'
  | 'auth-required'
  /** Its last attempt completed and was adopted: its checkpoint is stored. */
  | 'completed'
  | 'failed'
  | 'rejected'
  | 'canceled'
  /** Its budget ran out and the escalation cancelled it (its attempt's cancel record says whether the agent confirmed). */
  | 'timed-out'
  /** A cancel was requested and the agent did not confirm it within `cancelWaitMs`: the workflow stopped watching. */
  | 'cancel-requested'
  /** Never started: a dependency did not complete, or the workflow ended first. */
  | 'skipped'
  /** An update superseded its work; a successor attempt will run under the new revision. */
  | 'pending-reconciliation'
  /** Nothing can show whether its message reached the agent: it is not sent again (see the ledger). */
  | 'unresolved';

/** A node state after which nothing more happens to the node (unless an update supersedes it). */
export function isFinalNodeState(state: NodeState): boolean {
  return (
    state === 'completed' ||
    state === 'failed' ||
    state === 'rejected' ||
    state === 'canceled' ||
    state === 'timed-out' ||
    state === 'cancel-requested' ||
    state === 'skipped' ||
    state === 'unresolved'
  );
}

export type { CostRecord } from '../model/cost.js';

/** One artifact kept in a checkpoint. */
export interface CheckpointArtifact {
  artifact: Artifact;
  /** The agent sent its last chunk (or a terminal snapshot showed it whole). */
  complete: boolean;
}

/** A cancel, as it happened: who asked and why, and what the agent confirmed. */
export interface NodeCancelRecord {
  by: string;
  reason: string;
  requestedAt: string;
  /**
   * `confirmed`: the task reached `canceled`. `requested`: the request was sent (and maybe taken) but the
   * task was not seen ending (yet). `ignored`: the task ended afterwards in another state (its `state`
   * says which). `already-final`: it had ended before the request. `not-started`: it never ran. `failed`:
   * the request surely did not reach the agent (`error`).
   */
  outcome: 'confirmed' | 'requested' | 'ignored' | 'already-final' | 'not-started' | 'failed';
  /** When the canceled state was seen. */
  confirmedAt?: string | undefined;
  /** The task's state when the record was last updated. */
  state?: TaskState | undefined;
  error?: string | undefined;
  /** What the agent reported the task cost, once it ended. */
  cost?: CostRecord | undefined;
}

/** One attempt of a node: one task on one agent, under one revision. */
export interface AttemptRecord {
  /** 1, 2, … per node. */
  n: number;
  agent: string;
  agentUrl: string;
  revision: number;
  /** The message that starts the task: its id is the send's operation id in the ledger. */
  messageId: string;
  /** Set once the agent named the task (persisted before anything else happens to it). */
  taskId?: string | undefined;
  /** Tasks this one continues (the attempt it succeeds). */
  referenceTaskIds?: string[] | undefined;
  state: NodeState;
  taskState?: TaskState | undefined;
  startedAt: string;
  firstEventAt?: string | undefined;
  endedAt?: string | undefined;
  /** Its artifacts once it ended (kept for a failed attempt too, labelled by `complete`). */
  artifacts?: CheckpointArtifact[] | undefined;
  /** The agent's last status message. */
  statusMessage?: Message | undefined;
  error?: { code: string; message: string } | undefined;
  cost?: CostRecord | undefined;
  cancel?: NodeCancelRecord | undefined;
  /** Its result is the node's result (an attempt of the current revision that completed). */
  adopted?: boolean | undefined;
  /** Why its result was not adopted (a late result of a superseded revision, a foreign revision echo). */
  rejectedReason?: string | undefined;
}

/** A node of the delegation graph. */
export interface NodeRecord {
  id: string;
  agent: string;
  /** The delegation edge: the node that delegated this one (`undefined`: the root). */
  parent?: string | undefined;
  dependsOn: string[];
  state: NodeState;
  /** Why it is in its state, when that is not obvious (a skipped node names the dependency). */
  reason?: string | undefined;
  /** A cancel of a node that never ran (a running one's cancel is on its attempt). */
  cancel?: NodeCancelRecord | undefined;
  attempts: AttemptRecord[];
}

/** The outcome of one external action attempt. */
export type ActionOutcome =
  /** Written before the attempt: nothing is known yet. A crash here leaves it for reconciliation. */
  | 'intended'
  | 'confirmed-success'
  | 'confirmed-failure'
  /** The attempt ran but its answer never came: the effect may or may not exist. */
  | 'unknown'
  /** Unknown, and nothing could settle it: its retry is blocked. */
  | 'unresolved'
  /** The admission gate refused it (a superseded revision, or a pause): it never ran. */
  | 'refused';

/** One external action in the ledger (a send to an agent, a cancel, or one of your own effects). */
export interface LedgerEntry {
  /** `a1`, `a2`, … */
  id: string;
  revision: number;
  /** What it acts on: an agent name, a task, a service. */
  target: string;
  /** e.g. `SendMessage`, `CancelTask`, `payments.charge`. */
  operation: string;
  /** The operation / idempotency id (a message id for sends). Reused only for the same intended action. */
  key: string;
  /** A SHA-256 of the action's input (canonical JSON): the same key with another input is refused. */
  inputHash: string;
  /** The node it belongs to, if any. */
  node?: string | undefined;
  outcome: ActionOutcome;
  /** Every attempt and what was learned, in order. */
  history: Array<{ at: string; outcome: ActionOutcome; note?: string | undefined }>;
  /** What the success returned (a task id, a receipt), as JSON. */
  result?: unknown;
}

/** A checkpoint of a transition: what holds after an update (or a node's end), for audit and restart. */
export interface CheckpointRecord {
  at: string;
  /** Why: `node <id> completed`, `update 2 (correction)`, … */
  reason: string;
  revision: number;
  /** Ledger ids of effects confirmed done. */
  realized: string[];
  /** Nodes whose results are reused as they are. */
  reusable: Array<{ node: string; taskId: string | undefined }>;
  /** Ledger ids still unknown or unresolved, and tasks whose cancel is not confirmed. */
  pending: string[];
  /** Milliseconds left before the deadline, if there is one. */
  remainingMs?: number | undefined;
}

/** The state of a workflow as a whole. */
export type WorkflowState = 'running' | 'paused' | 'completed' | 'partial' | 'failed' | 'canceled';

/** Everything a workflow persists. */
export interface WorkflowRecord {
  schemaVersion: number;
  id: string;
  /** One A2A context for every task of the workflow. */
  contextId: string;
  state: WorkflowState;
  createdAt: string;
  endedAt?: string | undefined;
  /** Epoch milliseconds of the end-to-end deadline, if any (persisted, so a restart keeps the budget). */
  deadlineAt?: number | undefined;
  /** The revision in force. */
  revision: number;
  revisions: RevisionRecord[];
  updates: UpdateRecord[];
  nodes: Record<string, NodeRecord>;
  ledger: LedgerEntry[];
  checkpoints: CheckpointRecord[];
  /** A workflow-level cancel: who, why. */
  cancel?: { by: string; reason: string; at: string } | undefined;
  /**
   * The W3C trace context of the workflow's first span: a restarted orchestrator continues this trace,
   * so a workflow is one trace however many processes drove it.
   */
  trace?: { traceparent: string; tracestate?: string | undefined } | undefined;
}
