import { DEFAULTS } from '../defaults.js';
import type { PushNotificationConfig } from '../model/types.js';
import type { Scheduler } from '../util/scheduler.js';
import type { PushChannelRegistration, PushDelivery, PushRunner, RearmArgs } from './follow-context.js';

/**
 * One task's push delivery: its own webhook config (an id, and a token nobody else knows — never
 * stored), the receiver's registration for it, and the wait for the next push. The token is registered
 * before the send that carries it (`registration()`), so a push that comes before the agent names the
 * task is held by the receiver and delivered once `listen()` names it. A push that arrives while nobody
 * waits is remembered ("dirty") until the next GetTask looks.
 */
export class PushWaiter implements PushRunner {
  /** The task's webhook config: its token authenticates the agent's pushes. */
  readonly config: { id: string; token: string };
  private dirty = false;
  private wake: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  private taskId: string | undefined;
  /** The receiver's registration of the token (receivers without `register`: `expect` by task id). */
  private ticket: PushChannelRegistration | undefined;

  constructor(
    private readonly delivery: PushDelivery,
    private readonly scheduler: Scheduler,
    newId: () => string,
  ) {
    this.config = { id: `tether-${newId()}`, token: `${newId()}${newId()}` };
  }

  /** The config to register with the agent (with the creating send, or by CreateTaskPushNotificationConfig). */
  registration(): Omit<PushNotificationConfig, 'taskId'> {
    this.hold();
    return { id: this.config.id, url: this.delivery.url, token: this.config.token };
  }

  get ready(): Promise<void> {
    return this.ticket?.ready ?? Promise.resolve();
  }

  /** The receiver accepts this task's pushes from now on (and those held for its token); each one wakes the wait. Once per task. */
  listen(taskId: string): void {
    if (this.taskId !== undefined) return;
    this.taskId = taskId;
    this.hold();
    if (this.ticket) return this.ticket.bind(taskId);
    const { receiver } = this.delivery;
    receiver.expect(taskId, { token: this.config.token });
    this.unsubscribe = receiver.subscribe(taskId, () => this.poke());
  }

  /**
   * Waits for a push, or `ms` (the safety poll). True when it is time to look (GetTask), false when
   * `signal` aborted first. A push that already arrived ends the wait at once. Clears the push.
   */
  async wait(ms: number, signal: AbortSignal): Promise<boolean> {
    if (!this.dirty && !(await this.nextPush(ms, signal))) return false;
    this.dirty = false;
    return true;
  }

  /** After a GetTask: how long to wait for pushes before the next (0 when one arrived meanwhile). */
  nextDelayMs(): number {
    return this.dirty ? 0 : (this.delivery.safetyPollMs ?? DEFAULTS.pushSafetyPollMs);
  }

  /** The receiver stops accepting the task's pushes. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.ticket) this.ticket.forget();
    else if (this.taskId !== undefined) this.delivery.receiver.forget(this.taskId);
    this.ticket = undefined;
    this.taskId = undefined;
  }

  /** Registers the token with a receiver that can hold pushes for it before the task is named. */
  private hold(): void {
    const { receiver } = this.delivery;
    if (this.ticket || !receiver.register) return;
    this.ticket = receiver.register({ token: this.config.token, taskId: this.taskId });
    this.unsubscribe = this.ticket.subscribe(() => this.poke());
  }

  private poke(): void {
    this.dirty = true;
    this.wake?.();
  }

  private nextPush(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (value: boolean): void => {
        this.wake = undefined;
        if (timer !== undefined) this.scheduler.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = (): void => done(false);
      const timer = ms > 0 ? this.scheduler.setTimeout(() => done(true), ms) : undefined;
      this.wake = () => done(true);
      signal.addEventListener('abort', onAbort, { once: true });
      if (ms <= 0) done(true);
    });
  }
}

/**
 * A resumed push-mode task: the token of its webhook was never stored, so a new config is registered
 * (and the old one, `oldConfigId`, removed — best effort). The receiver takes the new token's pushes
 * before the config is created. `undefined` when the client has no push receiver, the card says the
 * agent cannot push, or the agent refuses: the task is then polled.
 */
export async function rearmPush(args: RearmArgs): Promise<PushWaiter | undefined> {
  const { client, delivery, scheduler, newId, taskId, oldConfigId, signal } = args;
  if (!delivery || !client.agent.push) return undefined;
  const waiter = new PushWaiter(delivery, scheduler, newId);
  waiter.listen(taskId);
  await waiter.ready;
  try {
    await client.createPushConfig({ taskId, ...waiter.registration() }, { signal });
  } catch {
    waiter.stop();
    return undefined;
  }
  if (oldConfigId !== undefined && oldConfigId !== waiter.config.id) {
    // A config nobody can authenticate any more only costs the agent refused posts.
    void client.deletePushConfig(taskId, oldConfigId, { signal }).catch(() => undefined);
  }
  return waiter;
}
