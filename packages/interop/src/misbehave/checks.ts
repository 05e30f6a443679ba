import { isInterruptedState, isTerminalState, isTetherError } from '@a2a-tether/node';
import type { Message, Task, TaskEvent } from '@a2a-tether/node';
import type { TestTaskRecord } from '@a2a-tether/testkit';
import { rebuildArtifacts, textOf } from '../chaos/checks.js';
import { acceptableFailure } from './acceptable-outcomes.js';
import type { RunPlan } from './plan.js';
import type { LoggedRequest } from './request-log.js';
import { worstWindow } from './request-log.js';

/** The request-rate ceiling outside a live stream (G9): at most this many requests … */
export const RATE_CEILING_REQUESTS = 20;
/** … in any window this long (virtual ms). */
export const RATE_CEILING_WINDOW_MS = 10_000;

/** Everything the checks look at for one run. */
export interface RunOutcome {
  plan: RunPlan;
  taskId: string | undefined;
  /** What `handle.events()` yielded, in order. */
  events: readonly TaskEvent[];
  /** What `done()` resolved with; `undefined` when it rejected or never settled. */
  final: Task | Message | undefined;
  /** Why `start()` or `done()` failed. */
  error: unknown;
  /** `reply()` calls the runner made, and the errors of those that failed. */
  replyCalls: number;
  replyErrors: readonly unknown[];
  /** The agent's task at the moment `done()` settled. */
  agentAtSettle: TestTaskRecord | undefined;
  /** The agent's task once it finished (or when the run gave up waiting for it). */
  agentFinal: TestTaskRecord | undefined;
  requests: readonly LoggedRequest[];
  /** Virtual ms from the start of the run until `done()` settled; `undefined`: it never did. */
  settledAt: number | undefined;
  /** The run's bound, in virtual ms. */
  boundMs: number;
}

function describeError(error: unknown): string {
  if (isTetherError(error)) return `${error.code}${'a2aCode' in error ? ` ${String(error.a2aCode)}` : ''}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Artifacts as compared: id, name, description and parts (text, or the kind of a non-text part). */
function artifactsKey(artifacts: ReadonlyArray<{ artifactId: string; name?: string | undefined; description?: string | undefined; parts: ReadonlyArray<{ kind: string; text?: string }> }>): string {
  return JSON.stringify(
    artifacts.map((a) => ({
      artifactId: a.artifactId,
      name: a.name ?? null,
      description: a.description ?? null,
      parts: a.parts.map((p) => (p.kind === 'text' ? { text: p.text } : { kind: p.kind })),
    })),
  );
}

/**
 * Check 1 — outcome: `done()` resolved with the agent's final state and exactly its artifacts (the
 * agent's task read when `done()` settled), or it failed in a way {@link acceptableFailure} accepts
 * for what was drawn. Failed `reply()` calls must be acceptable in the same way.
 */
export function checkOutcome(run: RunOutcome): string[] {
  const problems: string[] = [];
  const { plan, final, agentAtSettle } = run;
  if (run.error !== undefined && acceptableFailure(plan, run.error) === undefined) {
    problems.push(`failed with an error this draw does not explain: ${describeError(run.error)}`);
  }
  for (const error of run.replyErrors) {
    if (acceptableFailure(plan, error) === undefined) problems.push(`reply() failed: ${describeError(error)}`);
  }
  if (final === undefined) return problems;
  if (final.kind !== 'task') return [...problems, 'done() resolved with a message, not a task'];
  if (final.id !== run.taskId) problems.push(`done() resolved with task ${final.id}, not ${run.taskId ?? '?'}`);
  if (agentAtSettle === undefined) return [...problems, 'the agent has no such task'];
  if (!isTerminalState(final.status.state)) problems.push(`done() resolved with a ${final.status.state} task`);
  if (final.status.state !== agentAtSettle.state) {
    problems.push(`done() says ${final.status.state}, the agent's task was ${agentAtSettle.state} at that moment`);
  }
  const mine = artifactsKey(final.artifacts);
  const theirs = artifactsKey(agentAtSettle.artifacts);
  if (mine !== theirs) problems.push(`done() artifacts differ from the agent's:\n      done():  ${mine}\n      agent:   ${theirs}`);
  return problems;
}

/** Every string under a key named `key`, anywhere in a JSON-like value. */
function valuesOf(value: unknown, key: string, found: string[] = [], depth = 0): string[] {
  if (depth > 20 || typeof value !== 'object' || value === null) return found;
  if (Array.isArray(value)) {
    for (const item of value) valuesOf(item, key, found, depth + 1);
    return found;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === key && typeof v === 'string') found.push(v);
    else valuesOf(v, key, found, depth + 1);
  }
  return found;
}

/**
 * Check 2 — no foreign content: no app event and nothing in the final result contains `FOREIGN`, and
 * every `taskId` / `contextId` in them is the task's own.
 */
export function checkForeign(run: RunOutcome): string[] {
  const problems: string[] = [];
  const ownTask = run.taskId;
  const ownContext = run.agentFinal?.contextId;
  const where: Array<[string, unknown]> = run.events.map((event, i) => [`event #${i} (${event.type})`, event]);
  if (run.final !== undefined) where.push(['the final result', run.final]);
  for (const [label, value] of where) {
    if (JSON.stringify(value)?.includes('FOREIGN')) problems.push(`${label} contains FOREIGN content`);
    for (const id of valuesOf(value, 'taskId')) {
      if (ownTask !== undefined && id !== ownTask) problems.push(`${label} carries another task's id ${id}`);
    }
    for (const id of valuesOf(value, 'contextId')) {
      if (ownContext !== undefined && id !== ownContext) problems.push(`${label} carries another context ${id}`);
    }
  }
  return problems;
}

/** A status as the app sees it, for "the same status twice". Timestamps inform, they do not tell statuses apart. */
function statusKey(event: TaskEvent & { type: 'status' }): string {
  return `${event.state}|${event.message?.messageId ?? ''}|${event.message ? textOf(event.message.parts) : ''}`;
}

/**
 * Check 3 — app events: never the same status twice in a row, nothing but connection events after a
 * terminal status, and (when `done()` resolved) the artifact events rebuild exactly the final
 * artifacts. For a task that paused, the app was asked to reply once per pause the agent really made:
 * the replies the agent received equal its pauses (fewer only when the run ended in an accepted error),
 * and the runner never had to reply more often than the agent paused.
 */
export function checkAppEvents(run: RunOutcome): string[] {
  const problems: string[] = [];
  let previous: string | undefined;
  let terminal: string | undefined;
  for (const [i, event] of run.events.entries()) {
    if (event.type === 'connection') continue;
    if (terminal !== undefined) {
      problems.push(`event #${i} (${event.type}${event.type === 'status' ? ` ${event.state}` : ''}) after the terminal status ${terminal}`);
    }
    if (event.type !== 'status') continue;
    const key = statusKey(event);
    if (key === previous) problems.push(`event #${i}: the same status ${event.state} twice in a row`);
    previous = key;
    if (terminal === undefined && isTerminalState(event.state)) terminal = event.state;
  }
  if (run.final?.kind === 'task') {
    const rebuilt = JSON.stringify(rebuildArtifacts(run.events));
    const expected = JSON.stringify(run.final.artifacts.map((a) => ({ artifactId: a.artifactId, parts: a.parts })));
    if (rebuilt !== expected) problems.push(`the artifact events rebuild something else:\n      events:  ${rebuilt}\n      done():  ${expected}`);
  }
  const agent = run.agentFinal;
  if (agent !== undefined) {
    const pauses = agent.states.filter((state) => isInterruptedState(state)).length;
    const userMessages = new Set(agent.history.filter((m) => m.role === 'user').map((m) => m.messageId));
    const received = Math.max(0, userMessages.size - 1);
    if (received > pauses) problems.push(`the agent received ${received} replies for ${pauses} pause(s)`);
    if (run.final !== undefined && received < pauses) problems.push(`the agent paused ${pauses} time(s) but received ${received} replies`);
    if (run.replyCalls > pauses) problems.push(`the app was asked to reply ${run.replyCalls} times for ${pauses} pause(s)`);
  }
  return problems;
}

/** The requests the rate ceiling counts: all but the runner's own sends and the card fetch. */
export function countedRequests(requests: readonly LoggedRequest[]): LoggedRequest[] {
  return requests.filter((r) => r.byRunner === undefined && r.operation !== 'GetAgentCard');
}

/**
 * Check 4 — request rate: at most {@link RATE_CEILING_REQUESTS} requests in any
 * {@link RATE_CEILING_WINDOW_MS} window of virtual time (sliding), counting every request of the
 * client except the creating send, the replies the runner made and the card fetch.
 */
export function checkRequestRate(run: RunOutcome): string[] {
  const worst = worstWindow(countedRequests(run.requests).map((r) => r.at), RATE_CEILING_WINDOW_MS);
  if (worst.count <= RATE_CEILING_REQUESTS) return [];
  return [`${worst.count} requests within ${RATE_CEILING_WINDOW_MS / 1000} s (from +${((worst.startsAt ?? 0) / 1000).toFixed(2)} s); the ceiling is ${RATE_CEILING_REQUESTS}`];
}

/** Check 5 — termination: `done()` settled within the run's bound (virtual time). */
export function checkTermination(run: RunOutcome): string[] {
  if (run.settledAt === undefined) return [`done() did not settle within ${run.boundMs / 1000} s of virtual time`];
  if (run.settledAt > run.boundMs) return [`done() settled after ${(run.settledAt / 1000).toFixed(1)} s, past the bound of ${run.boundMs / 1000} s`];
  return [];
}

/** Every check, in order; empty when the run is fine. */
export function checkRun(run: RunOutcome): string[] {
  return [...checkTermination(run), ...checkOutcome(run), ...checkForeign(run), ...checkAppEvents(run), ...checkRequestRate(run)];
}

/** The agent's task in one line. */
export function describeAgentTask(task: TestTaskRecord | undefined): string {
  if (task === undefined) return '(unknown to the agent)';
  const artifacts = task.artifacts.map((a) => `${a.artifactId}=${JSON.stringify(a.parts.map((p) => (p.kind === 'text' ? p.text : `[${p.kind}]`)).join(''))}`).join(', ');
  return `${task.id} ${task.state}${task.lost === true ? ' (lost)' : ''}; states ${task.states.join(' → ')}; artifacts: ${artifacts || '(none)'}`;
}
