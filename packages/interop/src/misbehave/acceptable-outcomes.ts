import { A2AError, isTetherError } from '@a2a-tether/node';
import type { RunPlan } from './plan.js';

/**
 * What a run may end with besides success, by what was drawn. Success — `done()` resolving with the
 * agent's final state and exactly its artifacts — is acceptable for every draw; the table lists the
 * only failures (of `done()`, `start()` or a `reply()`) that are acceptable too:
 *
 * | drawn          | acceptable failure                                                                  | why |
 * |----------------|-------------------------------------------------------------------------------------|-----|
 * | `lose`         | `TaskNotFoundError` (code `A2A_ERROR`, a2aCode -32001), a `TetherError` with code `TASK_LOST`, `RETRY_EXHAUSTED`, or `DELIVERY_UNKNOWN` before any task id | the agent forgot the task: nothing can finish it, so giving up is right; when the creating send's answer was lost too, no lookup can find the forgotten task, and Tether reports it unknown rather than send the message again (issue 16) |
 * | `streamError`  | an `A2AError` with the drawn code (`mbCode`, default -32603)                        | the agent reported a failure in the stream; success is fine too, when the engine recovered or the frame never reached it |
 * | a fault proxy on v0.3 | `DELIVERY_UNKNOWN`, before any task id (`start()` rejects)                    | the proxy cut or stalled the creating send before its first event, and v0.3 has no ListTasks to find out whether the task was created: Tether reports it rather than sending the message again |
 * | `resetStream` on v0.3 | `DELIVERY_UNKNOWN`, before any task id                                        | the same, by the agent: a reset right after the first event may reach the client before that event does (a broken body loses what it had not handed out yet) |
 * | a fault proxy with cuts | `RETRY_EXHAUSTED` from `start()` ("gave up sending message …")             | every attempt of the creating send (`maxSendAttempts`) was cut off before its first event: a random cut rate makes that possible, however rare, for any finite budget |
 * | anything else  | none — in particular never `RETRY_EXHAUSTED`                                        | the planner draws only runs where the agent finishes and proxy bursts stay inside the default budget, so giving up means the engine stopped while progress was possible |
 *
 * (A run that does not settle within its bound fails the termination check whatever was drawn.)
 */
export const ACCEPTABLE_OUTCOMES = Object.freeze({
  lose: 'TaskNotFoundError (-32001), TASK_LOST, RETRY_EXHAUSTED or DELIVERY_UNKNOWN before any task id',
  streamError: 'A2AError with the drawn mbCode (or success)',
  proxyOnV03: 'DELIVERY_UNKNOWN before any task id',
  proxyCuts: 'RETRY_EXHAUSTED of the creating send',
  resetOnV03: 'DELIVERY_UNKNOWN before any task id',
} as const);

/**
 * The `streamError` code a plan's client reads. On v1.0 HTTP+JSON an error frame carries the A2A code only
 * in its ErrorInfo, which the testkit writes for -32001…-32010 (and never under `noErrorInfo`): any other
 * code is read from the frame's status — for the codes drawn here (-32603, -32000), `INTERNAL` → -32603.
 */
export function streamErrorCode(plan: RunPlan): number {
  const code = plan.params.code ?? -32603;
  const withInfo = code <= -32001 && code >= -32010 && !plan.misbehaviours.includes('noErrorInfo');
  return plan.version === '1.0' && plan.binding === 'HTTP+JSON' && !withInfo ? -32603 : code;
}

/**
 * Why `error` is an acceptable end of this run (the row of {@link ACCEPTABLE_OUTCOMES} it matches), or
 * `undefined` when it is not.
 */
export function acceptableFailure(plan: RunPlan, error: unknown): string | undefined {
  if (!isTetherError(error)) return undefined;
  const drawn = new Set(plan.misbehaviours);
  if (drawn.has('lose')) {
    if (error instanceof A2AError && error.a2aCode === -32001) return 'lose: TaskNotFoundError';
    if ((error.code as string) === 'TASK_LOST') return 'lose: TASK_LOST';
    if (error.code === 'RETRY_EXHAUSTED') return 'lose: RETRY_EXHAUSTED';
    if (error.code === 'DELIVERY_UNKNOWN' && error.taskId === undefined) return 'lose: DELIVERY_UNKNOWN';
  }
  if (drawn.has('streamError') && error instanceof A2AError && error.a2aCode === streamErrorCode(plan)) {
    return `streamError: A2AError ${error.a2aCode}`;
  }
  if (plan.proxy !== undefined && (plan.proxy.cutProbability > 0 || plan.proxy.statusProbability > 0) && error.code === 'RETRY_EXHAUSTED' && error.taskId === undefined && /^gave up sending message /.test(error.message)) {
    return 'fault proxy cuts: every creating send cut';
  }
  if (plan.version === '0.3' && plan.proxy !== undefined && error.code === 'DELIVERY_UNKNOWN' && error.taskId === undefined) {
    return 'fault proxy on v0.3: DELIVERY_UNKNOWN';
  }
  if (plan.version === '0.3' && drawn.has('resetStream') && error.code === 'DELIVERY_UNKNOWN' && error.taskId === undefined) {
    return 'resetStream on v0.3: DELIVERY_UNKNOWN';
  }
  return undefined;
}
