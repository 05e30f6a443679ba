export { runMisbehave } from './run-misbehave.js';
export type { GroupCount, MisbehaveFailure, MisbehaveOptions, MisbehaveReport, MisbehaviourCount } from './run-misbehave.js';
export { formatMisbehaveReport } from './report.js';
export { describePlan, planRun } from './plan.js';
export type { ProxyPlan, RunPlan, RunScenario } from './plan.js';
export { driveRun, REPLY_TEXT } from './drive-run.js';
export type { DriveOptions } from './drive-run.js';
export { ACCEPTABLE_OUTCOMES, acceptableFailure, streamErrorCode } from './acceptable-outcomes.js';
export {
  RATE_CEILING_REQUESTS,
  RATE_CEILING_WINDOW_MS,
  checkAppEvents,
  checkForeign,
  checkOutcome,
  checkRequestRate,
  checkRun,
  checkTermination,
  countedRequests,
  describeAgentTask,
} from './checks.js';
export type { RunOutcome } from './checks.js';
export { describeRequest, isSend, loggingFetch, operationOf, worstWindow } from './request-log.js';
export type { LoggedRequest, RunnerSendMark } from './request-log.js';
