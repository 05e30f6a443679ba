// @a2a-tether/core/orchestrate — delegation graphs over A2A: workflows of tasks on several agents with
// checkpoints, budgets, cancel propagation, instruction revisions and an action ledger. A subpath so
// that bundles which do not orchestrate (the browser's) never carry it. Every public name is listed here.

export { MemoryWorkflowStore, leasesWorkflows } from './orchestrate/workflow-store.js';
export type { WorkflowStore, LeasingWorkflowStore } from './orchestrate/workflow-store.js';
export { resumeWorkflows, takeOverWorkflows } from './orchestrate/workflow-resume.js';
export type { ResumeWorkflowsOptions, TakeOverWorkflowsOptions } from './orchestrate/workflow-resume.js';
export { WORKFLOW_RECORD_VERSION, isFinalNodeState } from './orchestrate/workflow-record.js';
export type {
  ActionOutcome,
  AttemptRecord,
  CheckpointArtifact,
  CheckpointRecord,
  CostRecord,
  LedgerEntry,
  NodeCancelRecord,
  NodeRecord,
  NodeState,
  RevisionRecord,
  UpdateKind,
  UpdateRecord,
  WorkflowRecord,
  WorkflowState,
} from './orchestrate/workflow-record.js';
export { startWorkflow, Workflow } from './orchestrate/workflow.js';
export { WORKFLOW_METADATA } from './orchestrate/revision-gate.js';
export { defaultCost } from './orchestrate/hop-attempt.js';
export { formatTree } from './orchestrate/summary.js';
export type {
  ActionSpec,
  Breach,
  Escalation,
  HopInput,
  HopResult,
  HopSpec,
  LookupAnswer,
  NodeSummary,
  PauseAnswer,
  PauseAnswerOutcome,
  WorkflowEvent,
  WorkflowOptions,
  WorkflowPause,
  WorkflowSummary,
  WorkflowUpdate,
} from './orchestrate/workflow-types.js';
