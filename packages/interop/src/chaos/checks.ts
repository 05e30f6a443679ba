import { isInterruptedState, isTerminalState } from '@a2a-tether/node';
import type { Artifact, Message, Part, Task, TaskEvent } from '@a2a-tether/node';

/** What one chaos task was asked to do, and what its server-side result must be. */
export interface TaskPlan {
  /** `stream`: a chunked task with no input turn; `input`: input-required, then `reply()`. */
  kind: 'stream' | 'input';
  /** The text sent to `client.start()`. */
  text: string;
  /** The conversation to send it in (default: a new one, the agent's choice). */
  contextId?: string | undefined;
  /** The reply sent at input-required (`input` only). */
  reply?: string | undefined;
  /** The text the agent's artifacts must add up to once the task completed (artifact texts joined in order). */
  expectedText: string;
}

/** Everything the checks look at for one task. */
export interface TaskRun {
  plan: TaskPlan;
  /** What the app saw, in order. */
  events: readonly TaskEvent[];
  /** What `done()` resolved with (`undefined` when it rejected). */
  final: Task | Message | undefined;
  /** Why `done()`, `start()` or `reply()` failed. */
  error: unknown;
  /** The task as the agent reports it, read directly (not through the proxy). */
  server: Task | undefined;
}

export function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : `[${part.kind}]`)).join('');
}

/** Rebuilds the artifacts from the app's artifact events as an app would: append adds, otherwise replace. */
export function rebuildArtifacts(events: readonly TaskEvent[]): Array<{ artifactId: string; parts: Part[] }> {
  const built = new Map<string, Part[]>();
  for (const event of events) {
    if (event.type !== 'artifact') continue;
    // Map.set on an existing key keeps its position: a replace keeps the artifact where it first appeared.
    built.set(event.artifactId, event.append ? [...(built.get(event.artifactId) ?? []), ...event.parts] : [...event.parts]);
  }
  return [...built].map(([artifactId, parts]) => ({ artifactId, parts }));
}

function artifactParts(artifacts: readonly Artifact[]): Array<{ artifactId: string; parts: Part[] }> {
  return artifacts.map((artifact) => ({ artifactId: artifact.artifactId, parts: artifact.parts }));
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}`;
  }
  return String(error);
}

/**
 * The chaos checks for one task. Returns what is wrong (empty: nothing):
 * - the task reached a terminal state and `done()` resolved with it;
 * - `done()`'s artifacts are byte-identical (JSON) to the agent's, and replaying the app's artifact
 *   events rebuilds exactly those artifacts (so no chunk was lost or appended twice);
 * - no duplicate status (same state and status message id; a `working` without a message may repeat
 *   only across an input-required turn), no message event twice, and at no point an artifact that
 *   shows a part twice or out of order (the final rebuild alone would not see content appended twice
 *   and later replaced by a recovered snapshot);
 * - no regression: nothing after a terminal status, `submitted` only first, the last status is the
 *   agent's terminal state.
 */
export function checkTask(run: TaskRun): string[] {
  const problems: string[] = [];
  const { plan, events, final, server } = run;
  if (run.error !== undefined) problems.push(`failed: ${describeError(run.error)}`);
  if (server === undefined) {
    problems.push('the agent does not know the task (direct GetTask failed)');
  } else {
    if (server.status.state !== 'completed') problems.push(`the agent's task is ${server.status.state}, not completed`);
    const serverText = server.artifacts.map((artifact) => textOf(artifact.parts)).join('');
    if (server.status.state === 'completed' && serverText !== plan.expectedText) {
      problems.push(`the agent's artifacts read ${JSON.stringify(serverText)}, expected ${JSON.stringify(plan.expectedText)}`);
    }
  }
  if (final !== undefined) {
    if (final.kind !== 'task') {
      problems.push('done() resolved with a message, not a task');
    } else {
      if (!isTerminalState(final.status.state)) problems.push(`done() resolved with a ${final.status.state} task`);
      if (server !== undefined) {
        if (final.id !== server.id) problems.push(`done() resolved with task ${final.id}, not ${server.id}`);
        if (final.status.state !== server.status.state) {
          problems.push(`done() says ${final.status.state}, the agent says ${server.status.state}`);
        }
        const mine = JSON.stringify(final.artifacts);
        const theirs = JSON.stringify(server.artifacts);
        if (mine !== theirs) problems.push(`done() artifacts differ from the agent's:\n    done():  ${mine}\n    agent:   ${theirs}`);
      }
    }
  } else if (run.error === undefined) {
    problems.push('done() never settled');
  }
  if (server !== undefined) {
    const rebuilt = JSON.stringify(rebuildArtifacts(events));
    const theirs = JSON.stringify(artifactParts(server.artifacts));
    if (rebuilt !== theirs) problems.push(`replaying the artifact events gives a different result:\n    events:  ${rebuilt}\n    agent:   ${theirs}`);
  }
  if (server !== undefined) problems.push(...checkArtifactContent(events, server));
  problems.push(...checkStatuses(events, server));
  const messages = new Set<string>();
  for (const event of events) {
    if (event.type !== 'message') continue;
    if (messages.has(event.message.messageId)) problems.push(`message ${event.message.messageId} delivered twice`);
    messages.add(event.message.messageId);
  }
  return problems;
}

type ContentVerdict = 'prefix' | 'hole' | 'wrong';

function isPrefixOf(prefix: readonly string[], of: readonly string[]): boolean {
  return prefix.length <= of.length && prefix.every((part, i) => of[i] === part);
}

function isSubsequenceOf(items: readonly string[], of: readonly string[]): boolean {
  let at = 0;
  for (const item of items) {
    while (at < of.length && of[at] !== item) at++;
    if (at === of.length) return false;
    at++;
  }
  return true;
}

/**
 * What the app held of each artifact after each artifact event, judged against the agent's final
 * artifact (the agents here only ever append): `prefix` — a correct partial view; `hole` — parts
 * missing in front of ones it already shows (live appends after a gap, until a snapshot repairs
 * it); `wrong` — a part shown twice or out of order.
 */
function artifactVerdicts(events: readonly TaskEvent[], server: Task): Array<{ index: number; artifactId: string; verdict: ContentVerdict; held: number }> {
  const finals = new Map(server.artifacts.map((artifact) => [artifact.artifactId, artifact.parts.map((part) => JSON.stringify(part))]));
  const held = new Map<string, string[]>();
  const verdicts: Array<{ index: number; artifactId: string; verdict: ContentVerdict; held: number }> = [];
  for (const [index, event] of events.entries()) {
    if (event.type !== 'artifact') continue;
    const parts = event.parts.map((part) => JSON.stringify(part));
    const now = event.append ? [...(held.get(event.artifactId) ?? []), ...parts] : parts;
    held.set(event.artifactId, now);
    const final = finals.get(event.artifactId) ?? [];
    const verdict = isPrefixOf(now, final) ? 'prefix' : isSubsequenceOf(now, final) ? 'hole' : 'wrong';
    verdicts.push({ index, artifactId: event.artifactId, verdict, held: now.length });
  }
  return verdicts;
}

function checkArtifactContent(events: readonly TaskEvent[], server: Task): string[] {
  return artifactVerdicts(events, server)
    .filter((v) => v.verdict === 'wrong')
    .slice(0, 3)
    .map((v) => `after event #${v.index} the app holds ${v.held} parts of artifact ${v.artifactId} with a part twice or out of order`);
}

/**
 * Artifact events after which the app showed an artifact with a hole (parts missing in front of
 * parts it already showed): not a failure — a snapshot later fills it and the result is exact — but
 * content the app should not have rendered.
 */
export function countHoles(events: readonly TaskEvent[], server: Task | undefined): number {
  return server === undefined ? 0 : artifactVerdicts(events, server).filter((v) => v.verdict === 'hole').length;
}

function checkStatuses(events: readonly TaskEvent[], server: Task | undefined): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  let terminal: string | undefined;
  let count = 0;
  let last: string | undefined;
  for (const event of events) {
    if (event.type !== 'status') continue;
    count++;
    const key = `${event.state}|${event.message?.messageId ?? ''}`;
    if (terminal !== undefined) problems.push(`status ${event.state} after terminal ${terminal}`);
    if (event.state === 'submitted' && count > 1) problems.push('submitted after another status');
    if (seen.has(key)) problems.push(`duplicate status ${event.state}${event.message ? ` (message ${event.message.messageId})` : ''}`);
    seen.add(key);
    // A new turn after input-required may legitimately go back to a plain `working`.
    if (isInterruptedState(event.state)) seen.delete('working|');
    if (isTerminalState(event.state)) terminal = event.state;
    last = event.state;
  }
  if (last === undefined) problems.push('no status event at all');
  else if (server !== undefined && last !== server.status.state) problems.push(`the last status is ${last}, the agent's task is ${server.status.state}`);
  return problems;
}

/** One line per event, for failure reports. */
export function describeEvent(event: TaskEvent): string {
  const recovered = 'recovered' in event && event.recovered ? ' (recovered)' : '';
  switch (event.type) {
    case 'status': {
      const message = event.message ? ` [${event.message.messageId.slice(0, 8)} ${JSON.stringify(textOf(event.message.parts))}]` : '';
      return `status ${event.state}${message}${recovered}`;
    }
    case 'artifact':
      return `artifact ${event.artifactId} ${event.append ? '+=' : '='} ${JSON.stringify(textOf(event.parts))}${event.lastChunk ? ' last' : ''}${recovered}`;
    case 'message':
      return `message ${event.message.messageId.slice(0, 8)} ${JSON.stringify(textOf(event.message.parts))}${recovered}`;
    case 'connection': {
      const attempt = event.attempt === undefined ? '' : ` #${event.attempt} in ${event.delayMs ?? 0}ms`;
      return `connection ${event.state}${attempt}${event.error ? ` (${event.error.code}: ${event.error.message})` : ''}`;
    }
    case 'store-error':
      return `store-error ${event.error.message}`;
  }
}

/** The agent's task in one line. */
export function describeServerTask(task: Task | undefined): string {
  if (task === undefined) return '(unknown to the agent)';
  const artifacts = task.artifacts.map((artifact) => `${artifact.artifactId}=${JSON.stringify(textOf(artifact.parts))}`).join(', ');
  return `${task.id} ${task.status.state}; artifacts: ${artifacts || '(none)'}`;
}
