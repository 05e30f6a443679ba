import type { Metadata, Task } from '../model/types.js';
import { withDependents } from './graph.js';
import type { UpdateRecord, WorkflowRecord } from './workflow-record.js';
import type { HopSpec, WorkflowUpdate } from './workflow-types.js';

/** Metadata keys Tether puts on every hop's message. */
export const WORKFLOW_METADATA = {
  workflow: 'a2a-tether/workflow',
  node: 'a2a-tether/node',
  revision: 'a2a-tether/revision',
} as const;

/** A hop message's metadata: the caller's, then the workflow, the node and the revision it is sent under. */
export function stamp(metadata: Metadata | undefined, workflow: string, node: string, revision: number): Metadata {
  return { ...metadata, [WORKFLOW_METADATA.workflow]: workflow, [WORKFLOW_METADATA.node]: node, [WORKFLOW_METADATA.revision]: revision };
}

/** The revisions an answer says it was made for: `a2a-tether/revision` (a number or digits) in each metadata given. */
export function echoedRevisions(sources: ReadonlyArray<Metadata | undefined>): number[] {
  const out: number[] = [];
  for (const metadata of sources) {
    const value = metadata?.[WORKFLOW_METADATA.revision];
    if (typeof value === 'number') out.push(value);
    else if (typeof value === 'string' && /^\d+$/.test(value)) out.push(Number(value));
  }
  return out;
}

/** Where a task's answer can name its revision: the task, its final status message, its artifacts. */
export function answerMetadata(task: Task): Array<Metadata | undefined> {
  return [task.metadata, task.status.message?.metadata, ...task.artifacts.map((a) => a.metadata)];
}

/**
 * Why a completed answer of an attempt sent under `revision` is not adopted, or `undefined` when it
 * is: it names another revision, or none where the hop requires the echo (`requireEcho`).
 */
export function refusal(revision: number, metadata: ReadonlyArray<Metadata | undefined>, requireEcho: boolean): string | undefined {
  const echoed = echoedRevisions(metadata);
  const other = echoed.find((n) => n !== revision);
  return other !== undefined
    ? `the agent answered for revision ${other}, not ${revision}`
    : echoed.length === 0 && requireEcho
      ? `the answer does not carry revision ${revision} (${WORKFLOW_METADATA.revision} in its metadata), which this hop requires (requireRevisionEcho)`
      : undefined;
}

/**
 * Writes an update into the record: a correction or new goal opens the next revision and names the
 * nodes it affects (`affects`, else every node not completed — every node for a new goal — and their
 * dependents); `pause` and `resume` change the workflow's state.
 */
export function recordUpdate(record: WorkflowRecord, hops: readonly HopSpec[], update: WorkflowUpdate, at: string): UpdateRecord {
  const seq = record.updates.length + 1;
  const changes = update.kind === 'correction' || update.kind === 'new-goal';
  let affected: string[] = [];
  if (changes) {
    const previous = record.revision;
    record.revision = previous + 1;
    record.revisions.push({ n: record.revision, text: update.text, updateSeq: seq, at, supersedes: previous });
    const ids = hops.map((h) => h.id);
    const base = update.affects ?? (update.kind === 'new-goal' ? ids : ids.filter((id) => record.nodes[id]?.state !== 'completed'));
    affected = withDependents(hops, base);
  }
  const written: UpdateRecord = { seq, kind: update.kind, text: update.text, by: update.by ?? 'user', at, revision: record.revision, ...(changes ? { affects: affected } : {}) };
  record.updates.push(written);
  if (update.kind === 'pause') record.state = 'paused';
  if (update.kind === 'resume' && record.state === 'paused') record.state = 'running';
  return written;
}
