import type { Metadata, Task } from '../model/types.js';

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
