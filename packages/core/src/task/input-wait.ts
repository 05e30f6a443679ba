import { isInterruptedState } from '../model/task-state.js';
import type { TaskState } from '../model/types.js';
import type { Scheduler, TimerHandle } from '../util/scheduler.js';

/**
 * The wait for a human at `input-required` / `auth-required`: a timer that runs from the moment
 * the task paused until a reply is sent or the agent moves on, and calls `onTimeout` if neither
 * happens within `timeoutMs` (no timer when `timeoutMs` is undefined: wait as long as it takes).
 * While `auth-required`, the agent may resume on its own once credentials arrive out of band:
 * {@link lookAgainMs} says how often to look.
 */
export class InputWait {
  private timer: TimerHandle | undefined;
  private pausedAt: TaskState | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly timeoutMs: number | undefined,
    private readonly authLookMs: number,
    private readonly onTimeout: (state: TaskState) => void,
  ) {}

  /** The task's state changed (or a reply is on its way: `replying`). */
  update(state: TaskState, replying: boolean): void {
    if (!isInterruptedState(state) || replying) {
      this.stop();
      return;
    }
    if (this.pausedAt === state && this.timer !== undefined) return;
    this.stop();
    this.pausedAt = state;
    if (this.timeoutMs !== undefined) {
      this.timer = this.scheduler.setTimeout(() => {
        this.timer = undefined;
        this.onTimeout(state);
      }, this.timeoutMs);
    }
  }

  /** How long to wait before looking whether the agent left this state by itself (`undefined`: don't). */
  lookAgainMs(state: TaskState): number | undefined {
    return state === 'auth-required' && this.authLookMs > 0 ? this.authLookMs : undefined;
  }

  stop(): void {
    if (this.timer !== undefined) this.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
    this.pausedAt = undefined;
  }
}
