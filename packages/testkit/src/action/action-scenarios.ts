import type { ScenarioContext, ScenarioFn } from '../agent/scenario.js';
import { intParam } from '../agent/scenarios.js';
import type { ActionService } from './action-service.js';

/** User-message metadata key of the idempotency key an {@link actionScenario} performs its action under. */
export const IDEMPOTENCY_KEY_METADATA = 'a2a-tether/idempotency-key';

/** Metadata key of the revision a user message carries; the action scenarios echo it on their artifact. */
export const REVISION_METADATA = 'a2a-tether/revision';

/** A cost an agent reports in its final status message's metadata, under `cost`. */
export interface ScenarioCost {
  amount: number;
  unit: string;
}

/** Options of {@link actionScenario}. */
export interface ActionScenarioOptions {
  /** The operation name recorded by the service (and shown in the receipt). */
  operation: string;
  /** How long the agent works after performing, before it answers. Default 0; `delay=<ms>` in the text overrides. */
  delayMs?: number | undefined;
  /** Reported as `cost` in the final status message's metadata. */
  cost?: ScenarioCost | undefined;
}

/** Options of {@link lateScenario}. */
export interface LateScenarioOptions {
  /** How long the agent works before it completes. `delay=<ms>` in the text overrides. */
  delayMs: number;
  /** First word of the result text. Default `'late'`. */
  label?: string | undefined;
  /** Reported as `cost` in the final status message's metadata. */
  cost?: ScenarioCost | undefined;
}

/** `{ 'a2a-tether/revision': … }` when the user message carries a revision, else undefined. */
function revisionMetadata(ctx: ScenarioContext): Record<string, unknown> | undefined {
  const revision = ctx.userMessage.metadata?.[REVISION_METADATA];
  return revision === undefined ? undefined : { [REVISION_METADATA]: revision };
}

/** Complete the task: the final status message, with `cost` in its metadata when given. */
function complete(ctx: ScenarioContext, text: string, cost: ScenarioCost | undefined): void {
  ctx.status('completed', text, cost === undefined ? undefined : { metadata: { cost: { ...cost } } });
}

/**
 * An agent that performs an external action on `service`, then answers.
 *
 * The action's key is the user message's metadata `a2a-tether/idempotency-key` (a non-empty string) if
 * present, else its `messageId`; its input is the user message's first text. The task goes `working`,
 * the action is performed (at once, in-process), then the agent waits `delayMs` (`delay=<ms>` in the text
 * overrides) with `ctx.sleep`, so a cancel during the wait ends the task `canceled` — after the effect.
 * Then it emits the artifact `receipt` (text `done <operation> <key>`, metadata echoing the message's
 * `a2a-tether/revision` if any) and completes with the status message `done <operation> <key>`, whose
 * metadata carries `cost` when `options.cost` is given.
 *
 * @example
 * ```ts
 * const agent = await startTestAgent({ scenarios: { pay: actionScenario(service, { operation: 'pay' }) } });
 * // a user message "pay delay=50" with metadata {'a2a-tether/idempotency-key': 'order-1'}
 * ```
 */
export function actionScenario(service: ActionService, options: ActionScenarioOptions): ScenarioFn {
  return async (ctx) => {
    const delayMs = intParam(ctx, 'delay', options.delayMs ?? 0);
    const given = ctx.userMessage.metadata?.[IDEMPOTENCY_KEY_METADATA];
    const key = typeof given === 'string' && given !== '' ? given : ctx.userMessage.messageId;
    ctx.status('working');
    service.perform(key, options.operation, ctx.text);
    if (delayMs > 0) await ctx.sleep(delayMs);
    const done = `done ${options.operation} ${key}`;
    ctx.artifact({ artifactId: 'receipt', name: 'receipt', text: done, lastChunk: true, metadata: revisionMetadata(ctx) });
    complete(ctx, done, options.cost);
  };
}

/**
 * A child that ignores cancel and returns late: it goes `working`, works `delayMs` (`delay=<ms>` in the
 * text overrides) on its own timer, which cancel does not stop, then emits the artifact `result` (text
 * `<label> for: <first text>`, metadata echoing the message's `a2a-tether/revision` if any) and completes
 * (status message `<label> done`, with `cost` in its metadata when given).
 *
 * A CancelTask meanwhile is received (it answers, after `cancelWaitMs`, with the task still `working`)
 * but the task ends `completed`, never `canceled`. Closing the agent stops it: its late calls then fail
 * quietly. The timer is unref'd, so it never keeps a process alive.
 */
export function lateScenario(options: LateScenarioOptions): ScenarioFn {
  const label = options.label ?? 'late';
  return async (ctx) => {
    const delayMs = intParam(ctx, 'delay', options.delayMs);
    ctx.status('working');
    await new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref());
    ctx.artifact({
      artifactId: 'result',
      name: 'result',
      text: `${label} for: ${ctx.text}`,
      lastChunk: true,
      metadata: revisionMetadata(ctx),
    });
    complete(ctx, `${label} done`, options.cost);
  };
}
