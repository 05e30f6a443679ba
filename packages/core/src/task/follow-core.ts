import type { RecordChange } from './store-writer.js';
import type { FollowContext, PushRunner } from './follow-context.js';
import type { FollowOptions, PendingSend } from './follow-types.js';
import type { DeliveryMode, FollowInput, FollowState } from './follow-state.js';
import type { InputWait } from './input-wait.js';
import type { Outcome } from './phase.js';
import type { Reconciler } from './reconciler.js';
import type { RequestLimiter } from './request-limiter.js';
import type { RetryBudget } from './retry-budget.js';
import type { SessionHost, StreamSession } from './stream-session.js';

/**
 * One follow as its steps and commands see it (`follow-steps.ts`, `follow-intake.ts`,
 * `follow-commands.ts`). The loop (`follower.ts`) is the one implementation: it owns the state value
 * and the resources; the steps read them and change them only through these methods.
 */
export interface FollowCore {
  readonly context: FollowContext;
  readonly options: FollowOptions;
  /** Every request the follow makes on its own passes this ceiling. */
  readonly limiter: RequestLimiter;
  readonly budget: RetryBudget;
  readonly inputWait: InputWait;
  /** The follow's state value (only the loop replaces it, through {@link dispatch}). */
  readonly state: FollowState;
  /** The task's reconciled state, once the agent named the task. */
  readonly view: Reconciler | undefined;
  readonly taskId: string | undefined;
  readonly finished: boolean;
  /** The open stream, if any (the send's or a subscription's). */
  readonly session: StreamSession | undefined;
  /** The start or reply on its way, if any. */
  readonly pending: PendingSend | undefined;
  /** Push mode: the task's webhook config and the wait for its pushes. */
  readonly push: PushRunner | undefined;
  /** What a stream session needs of this follow. */
  readonly sessions: SessionHost;
  /** Hands the reducer an input and runs the effects it returns. */
  dispatch(input: FollowInput): void;
  /** Ends the current step with `outcome` (the strongest interruption wins). */
  interrupt(outcome: Outcome): void;
  /** The agent named the task: the reconciler and the record (G1) exist from here on. */
  identify(taskId: string, contextId: string, mode: DeliveryMode): void;
  /** `session` is the open stream now. */
  attach(session: StreamSession): void;
  /**
   * Closes `session` and forgets it; `ended`: it ran and ended, and its progress decides whether it
   * was futile (an answer that could not be applied does not count).
   */
  release(session: StreamSession, ended: boolean): void;
  /** The pending send is settled (acknowledged or failed): nothing is on its way. */
  settled(): void;
  persist(change: RecordChange): void;
  /** Resolves after `ms`, or as soon as the follow ended. */
  settledWithin(ms: number): Promise<void>;
}
